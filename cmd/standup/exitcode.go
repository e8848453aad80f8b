package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/kubestandup/standup/pkg/tiers"
)

// Exit codes, mapped from errors in exactly one place.
const (
	ExitOK           = 0
	ExitFailure      = 1
	ExitUsage        = 2
	ExitDeadlock     = 3
	ExitInvalidGraph = 4
	ExitTimeout      = 124
	ExitInterrupted  = 130
)

// exitError carries an explicit exit code; its message has been printed
// already when silent is set (for example by a summary).
type exitError struct {
	code   int
	err    error
	silent bool
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageErrorf(format string, args ...any) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf(format, args...)}
}

func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: code, err: err}
}

// errInterrupted marks a walk stopped by the user (Ctrl-C, SIGTERM).
var errInterrupted = errors.New("interrupted")

// errTimedOut marks a walk stopped by --timeout.
var errTimedOut = errors.New("timed out")

// ExitCode prints err (one line, to stderr) and returns the process exit code.
func ExitCode(err error, stderr io.Writer) int {
	if err == nil {
		return ExitOK
	}
	code := codeOf(err)
	var ee *exitError
	if !(errors.As(err, &ee) && ee.silent) {
		fmt.Fprintf(stderr, "standup: %s\n", strings.TrimSpace(err.Error()))
	}
	return code
}

func codeOf(err error) int {
	var ee *exitError
	var cycle *tiers.CycleError
	var missing *tiers.MissingError
	switch {
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &cycle), errors.As(err, &missing):
		return ExitInvalidGraph
	case errors.Is(err, errTimedOut), errors.Is(err, context.DeadlineExceeded):
		return ExitTimeout
	case errors.Is(err, errInterrupted), errors.Is(err, context.Canceled):
		return ExitInterrupted
	default:
		return ExitFailure
	}
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/kubestandup/standup/internal/printer"
	"github.com/kubestandup/standup/pkg/check"
	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

// Exit codes, mapped from errors here and nowhere else: commands return
// errors that say what happened (outcome.go, and the library packages'
// typed errors), and codeOf chooses the code.
const (
	ExitOK           = 0
	ExitFailure      = 1
	ExitUsage        = 2
	ExitDeadlock     = 3
	ExitInvalidGraph = 4
	ExitTimeout      = 124
	ExitInterrupted  = 130
)

// ExitCode prints err (one line, to stderr, unless it is a *printedError),
// after the name standup was invoked by, and returns the process exit
// code.
func ExitCode(err error, stderr io.Writer) int {
	if err == nil {
		return ExitOK
	}
	if !errors.As(err, new(*printedError)) {
		prog := "standup"
		if inv, ok := errors.AsType[*invokedError](err); ok {
			prog = inv.prog
		}
		fmt.Fprintf(stderr, "%s: %s\n", prog, strings.TrimSpace(err.Error()))
	}
	return codeOf(err)
}

func codeOf(err error) int {
	if code, ok := outcomeCode(err); ok {
		return code
	}
	switch {
	case errors.As(err, new(*tiers.CycleError)), errors.As(err, new(*tiers.MissingError)):
		return ExitInvalidGraph
	case errors.Is(err, context.DeadlineExceeded):
		return ExitTimeout
	case errors.Is(err, context.Canceled):
		return ExitInterrupted
	default:
		return ExitFailure
	}
}

// outcomeCode returns the exit code of an error that says what happened,
// and false for any other error. Such an error is the command's verdict:
// neither a graph error it wraps nor a deadline that passed after it
// changes its code.
func outcomeCode(err error) (int, bool) {
	switch {
	case errors.As(err, new(*fleetError)):
		var f *fleetError
		errors.As(err, &f)
		return f.code, true
	case errors.As(err, new(*usageError)), errors.As(err, new(*printer.FormatError)):
		return ExitUsage, true
	case errors.Is(err, errInterrupted):
		return ExitInterrupted, true
	case errors.Is(err, errTimedOut):
		return ExitTimeout, true
	case errors.Is(err, wait.ErrDeadlock), errors.As(err, new(*crds.UnresolvedError)):
		return ExitDeadlock, true
	case errors.As(err, new(*unrenderedError)), errors.As(err, new(*hazardsError)), errors.As(err, new(*nodesFailedError)),
		errors.As(err, new(*check.FailedError)):
		return ExitFailure, true
	}
	return 0, false
}

// isOutcome reports whether err is a command's outcome (outcome.go, and
// the typed errors outcomeCode knows): an error that says what happened,
// so its exit code is settled, and neither urfave/cli's exit code nor the
// deadline that passed after it may replace it.
func isOutcome(err error) bool {
	_, ok := outcomeCode(err)
	return ok
}

// summaryStopped records on a walk's summary what stopped it before every node
// ended, err as the walk returned it: --timeout, or the error the command
// exits with (a cycle, an API error, a refused write). The summary printed
// then says so, and is never ✔ for a command that fails. An interrupt has
// its own mark (Summary.Interrupted).
func summaryStopped(s wait.Summary, err error) wait.Summary {
	switch {
	case err == nil, errors.Is(err, context.Canceled):
	case errors.Is(err, context.DeadlineExceeded):
		s.Error = "--timeout ran out"
	default:
		s.Error = strings.TrimSpace(err.Error())
	}
	return s
}

// walkError is the error a finished walk deserves (resume, and crds's
// repair walk), from its summary. The walk has printed its summary: an
// interrupt or the command's deadline adds nothing to it.
func walkError(s wait.Summary, err error) error {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return &printedError{errTimedOut}
	case errors.Is(err, context.Canceled) || s.Interrupted:
		return &printedError{errInterrupted}
	case err != nil:
		return err
	case len(s.Deadlocked) > 0:
		return fmt.Errorf("%w: %s (see docs/runbook.md)", wait.ErrDeadlock, ids(s.Deadlocked))
	case len(s.FailedNodes) > len(s.TimedOut) || len(s.LeftSuspended) > 0:
		return &nodesFailedError{summary: s}
	case len(s.TimedOut) > 0:
		return fmt.Errorf("%w: %s", errTimedOut, ids(s.TimedOut))
	case s.Ready < s.Total:
		// Every walked node must end Ready (docs/exit-codes.md); a node
		// blocked or left unfinished for a reason the cases above do not
		// name is a failure all the same.
		return &nodesFailedError{summary: s}
	}
	return nil
}

package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/render"
	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

// The errors commands return to say what happened; exitcode.go maps each to
// its exit code.

// usageError is a command line that asks for something standup does not
// do: nothing was done.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usageErrorf(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// errInterrupted marks a command stopped by the user (Ctrl-C, SIGTERM).
var errInterrupted = errors.New("interrupted")

// errTimedOut marks a command, or nodes of a walk, stopped by a deadline.
var errTimedOut = errors.New("timed out")

// timeoutError is a command that --timeout ended; err is what it cut short.
type timeoutError struct {
	after time.Duration
	err   error
}

func (e *timeoutError) Error() string {
	return fmt.Sprintf("gave up after --timeout %s: %s", e.after, e.err)
}
func (e *timeoutError) Unwrap() error        { return e.err }
func (e *timeoutError) Is(target error) bool { return target == errTimedOut }

// unrenderedError lists the Kustomizations of a checkout that could not be
// rendered (a file over a limit of bounded input), one per line: what could
// be rendered is printed, and the run fails.
type unrenderedError struct{ failed []render.BuildFailure }

// unrendered returns the unrenderedError of failed, nil when it is empty.
func unrendered(failed []render.BuildFailure) error {
	if len(failed) == 0 {
		return nil
	}
	return &unrenderedError{failed}
}

func (e *unrenderedError) Error() string {
	msgs := make([]string, len(e.failed))
	for i, f := range e.failed {
		msgs[i] = f.Error()
	}
	return strings.Join(msgs, "\n")
}

// hazardsError is an audit that found findings of severity error.
type hazardsError struct{ n int }

func (e *hazardsError) Error() string {
	if e.n == 1 {
		return "audit: 1 finding is an error"
	}
	return fmt.Sprintf("audit: %d findings are errors", e.n)
}

// nodesFailedError is a walk in which nodes failed for a reason other
// than their deadline.
type nodesFailedError struct{ summary wait.Summary }

func (e *nodesFailedError) Error() string {
	what := "Kustomizations"
	for _, id := range e.summary.FailedNodes {
		if id.Kind != flux.KindKustomization {
			what = "Kustomizations and HelmReleases"
		}
	}
	return fmt.Sprintf("%d of %d %s failed: %s", e.summary.Failed, e.summary.Total, what, ids(e.summary.FailedNodes))
}

// invokedError is any error Run returns, with the name standup was invoked
// by ("kubectl standup"), so that the line ExitCode prints starts with what
// the user typed.
type invokedError struct {
	prog string
	err  error
}

func (e *invokedError) Error() string { return e.err.Error() }
func (e *invokedError) Unwrap() error { return e.err }

// printedError is an error whose message standup has printed already (a
// walk's summary, audit's text report, an unknown command's line):
// ExitCode prints nothing more, and the wrapped error still chooses the
// exit code.
type printedError struct{ err error }

func (e *printedError) Error() string { return e.err.Error() }
func (e *printedError) Unwrap() error { return e.err }

func ids(list []tiers.ID) string {
	s := make([]string, len(list))
	for i, id := range list {
		s[i] = id.String()
	}
	return strings.Join(s, ", ")
}

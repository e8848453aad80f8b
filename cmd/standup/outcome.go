package main

import (
	"errors"
	"fmt"
	"slices"
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

// nodesFailedError is a walk that ended with nodes not Ready for a reason
// other than their deadline: they failed, or were left suspended
// (--no-unsuspend) and blocked what depends on them.
type nodesFailedError struct{ summary wait.Summary }

func (e *nodesFailedError) Error() string {
	s := e.summary
	what := "Kustomizations"
	for _, id := range append(slices.Clone(s.FailedNodes), s.LeftSuspended...) {
		if id.Kind != flux.KindKustomization {
			what = "Kustomizations and HelmReleases"
		}
	}
	if s.Failed > 0 && len(s.LeftSuspended) == 0 {
		return fmt.Sprintf("%d of %d %s failed: %s", s.Failed, s.Total, what, ids(s.FailedNodes))
	}
	var parts []string
	if s.Failed > 0 {
		parts = append(parts, fmt.Sprintf("%d failed: %s", s.Failed, ids(s.FailedNodes)))
	}
	if len(s.LeftSuspended) > 0 {
		parts = append(parts, fmt.Sprintf("%d left suspended (--no-unsuspend): %s", len(s.LeftSuspended), ids(s.LeftSuspended)))
	}
	if others := s.Blocked - len(s.LeftSuspended); others > 0 && len(parts) > 0 {
		parts = append(parts, fmt.Sprintf("%d blocked by them", others))
	} else if others > 0 {
		parts = append(parts, fmt.Sprintf("%d blocked", others))
	}
	if s.Pending > 0 {
		parts = append(parts, fmt.Sprintf("%d unfinished", s.Pending))
	}
	return fmt.Sprintf("%d of %d %s not Ready: %s", s.Total-s.Ready, s.Total, what, strings.Join(parts, "; "))
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

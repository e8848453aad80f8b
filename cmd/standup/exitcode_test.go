package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/kubestandup/standup/internal/printer"
	"github.com/kubestandup/standup/pkg/check"
	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/render"
	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

// TestExitCode pins every error → exit code and what is printed, the
// nestings included: a verdict keeps its code whatever it wraps.
func TestExitCode(t *testing.T) {
	missing := &tiers.MissingError{Missing: []tiers.MissingDependency{{Dependent: tiers.ID{Kind: "Kustomization", Namespace: "a", Name: "b"}, Missing: tiers.ID{Kind: "Kustomization", Namespace: "a", Name: "x"}}}}
	buildFailed := unrendered([]render.BuildFailure{{ID: tiers.ID{Kind: "Kustomization", Namespace: "a", Name: "b"}, Err: errors.New("big.yaml: over 16 MiB")}})
	tests := []struct {
		name       string
		err        error
		wantCode   int
		wantStderr string
	}{
		{name: "nil", err: nil, wantCode: ExitOK},
		{name: "plain", err: errors.New("boom"), wantCode: ExitFailure, wantStderr: "standup: boom\n"},
		{name: "usage", err: usageErrorf("bad %s", "line"), wantCode: ExitUsage, wantStderr: "standup: bad line\n"},
		{name: "unknown -o", err: &printer.FormatError{Command: "resume", Format: "yaml", Want: []string{"text", "json"}}, wantCode: ExitUsage,
			wantStderr: "standup: resume: unknown output format \"yaml\" (want text or json)\n"},
		{name: "reported usage prints nothing", err: &printedError{&usageError{errors.New("unknown command")}}, wantCode: ExitUsage},
		{name: "missing dependency", err: fmt.Errorf("%w: fix it", missing), wantCode: ExitInvalidGraph, wantStderr: "standup: " + missing.Error() + ": fix it\n"},
		{name: "cycle", err: &tiers.CycleError{}, wantCode: ExitInvalidGraph, wantStderr: "standup: " + strings.TrimSpace((&tiers.CycleError{}).Error()) + "\n"},
		{name: "unrendered wins over the missing dependency it explains", err: fmt.Errorf("%w; it may be among what these apply:\n%w", missing, buildFailed), wantCode: ExitFailure,
			wantStderr: "standup: " + missing.Error() + "; it may be among what these apply:\nKustomization/a/b not rendered: big.yaml: over 16 MiB\n"},
		{name: "deadline", err: fmt.Errorf("list: %w", context.DeadlineExceeded), wantCode: ExitTimeout, wantStderr: "standup: list: context deadline exceeded\n"},
		{name: "canceled", err: fmt.Errorf("list: %w", context.Canceled), wantCode: ExitInterrupted, wantStderr: "standup: list: context canceled\n"},
		{name: "--timeout wins over what it cut short", err: &timeoutError{after: 3e9, err: missing}, wantCode: ExitTimeout, wantStderr: "standup: gave up after --timeout 3s: " + missing.Error() + "\n"},
		{name: "interrupt wins over what it cut short", err: fmt.Errorf("%w: %w", errInterrupted, missing), wantCode: ExitInterrupted, wantStderr: "standup: interrupted: " + missing.Error() + "\n"},
		{name: "audit hazards", err: &hazardsError{2}, wantCode: ExitFailure, wantStderr: "standup: audit: 2 findings are errors\n"},
		{name: "audit hazards, reported by the text summary", err: &printedError{&hazardsError{1}}, wantCode: ExitFailure},
		{name: "unresolved deadlocks, one per line", err: errors.Join(&crds.UnresolvedError{Diagnosis: crds.Diagnosis{Kustomization: tiers.ID{Kind: "Kustomization", Namespace: "a", Name: "b"}}}, errors.New("second")),
			wantCode: ExitDeadlock},
		{name: "check's explicit code", err: &check.FailedError{Checks: []string{"flux"}}, wantCode: ExitFailure, wantStderr: "standup: check failed: flux\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			if got := ExitCode(tt.err, &stderr); got != tt.wantCode {
				t.Errorf("ExitCode() = %d, want %d", got, tt.wantCode)
			}
			if tt.wantStderr != "" || tt.wantCode == ExitOK || errors.As(tt.err, new(*printedError)) {
				if stderr.String() != tt.wantStderr {
					t.Errorf("stderr = %q, want %q", stderr.String(), tt.wantStderr)
				}
			}
		})
	}
}

// TestWalkError maps a finished walk's summary to its error and code.
func TestWalkError(t *testing.T) {
	a := tiers.ID{Kind: "Kustomization", Namespace: "flux-system", Name: "a"}
	b := tiers.ID{Kind: "Kustomization", Namespace: "flux-system", Name: "b"}
	tests := []struct {
		name     string
		s        wait.Summary
		err      error
		wantCode int
		wantMsg  string // "" when the summary said it all
	}{
		{name: "all ready", s: wait.Summary{Ready: 2, Total: 2}, wantCode: ExitOK},
		{name: "deadline", err: context.DeadlineExceeded, wantCode: ExitTimeout},
		{name: "interrupted", s: wait.Summary{Interrupted: true}, wantCode: ExitInterrupted},
		{name: "canceled", err: fmt.Errorf("watch: %w", context.Canceled), wantCode: ExitInterrupted},
		{name: "walk error", err: errors.New("initial list failed"), wantCode: ExitFailure, wantMsg: "initial list failed"},
		{name: "deadlock", s: wait.Summary{Deadlocked: []tiers.ID{a, b}, Failed: 2, FailedNodes: []tiers.ID{a, b}}, wantCode: ExitDeadlock,
			wantMsg: "cold-start deadlock not resolved: Kustomization/flux-system/a, Kustomization/flux-system/b (see docs/runbook.md)"},
		{name: "failed", s: wait.Summary{Failed: 1, Total: 2, FailedNodes: []tiers.ID{a}}, wantCode: ExitFailure, wantMsg: "1 of 2 Kustomizations failed: Kustomization/flux-system/a"},
		{name: "failed and timed out: failed", s: wait.Summary{Failed: 2, Total: 2, FailedNodes: []tiers.ID{a, b}, TimedOut: []tiers.ID{b}}, wantCode: ExitFailure,
			wantMsg: "2 of 2 Kustomizations failed: Kustomization/flux-system/a, Kustomization/flux-system/b"},
		{name: "a HelmRelease failed", s: wait.Summary{Failed: 1, Total: 2, FailedNodes: []tiers.ID{{Kind: "HelmRelease", Namespace: "apps", Name: "web"}}}, wantCode: ExitFailure,
			wantMsg: "1 of 2 Kustomizations and HelmReleases failed: HelmRelease/apps/web"},
		{name: "timed out only", s: wait.Summary{Failed: 1, Total: 2, FailedNodes: []tiers.ID{b}, TimedOut: []tiers.ID{b}}, wantCode: ExitTimeout, wantMsg: "timed out: Kustomization/flux-system/b"},
		// Issue 31: resume --no-unsuspend printed ✗ 4/7 ready, 0 failed, 3 blocked and exited 0.
		{name: "left suspended, and what it blocks", s: wait.Summary{Ready: 4, Blocked: 3, Total: 7, LeftSuspended: []tiers.ID{a}}, wantCode: ExitFailure,
			wantMsg: "3 of 7 Kustomizations not Ready: 1 left suspended (--no-unsuspend): Kustomization/flux-system/a; 2 blocked by them"},
		{name: "left suspended beside a timeout: not only timeouts", s: wait.Summary{Ready: 0, Failed: 1, Blocked: 1, Total: 2, FailedNodes: []tiers.ID{b}, TimedOut: []tiers.ID{b}, LeftSuspended: []tiers.ID{a}},
			wantCode: ExitFailure, wantMsg: "2 of 2 Kustomizations not Ready: 1 failed: Kustomization/flux-system/b; 1 left suspended (--no-unsuspend): Kustomization/flux-system/a"},
		{name: "blocked for a reason no case names", s: wait.Summary{Ready: 1, Blocked: 1, Total: 2}, wantCode: ExitFailure,
			wantMsg: "1 of 2 Kustomizations not Ready: 1 blocked"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			err := walkError(tt.s, tt.err)
			if code := ExitCode(err, &stderr); code != tt.wantCode {
				t.Errorf("code = %d, want %d (%v)", code, tt.wantCode, err)
			}
			want := ""
			if tt.wantMsg != "" {
				want = "standup: " + tt.wantMsg + "\n"
			}
			if stderr.String() != want {
				t.Errorf("stderr = %q, want %q", stderr.String(), want)
			}
		})
	}
}

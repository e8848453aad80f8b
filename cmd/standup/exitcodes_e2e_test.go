package main

import (
	"strings"
	"testing"
)

// TestResumeExitCodesLive: a few rows of docs/exit-codes.md against a real
// cluster (TestExitCodesAsDocumented checks them all without one): on the
// suspended graph, --no-unsuspend leaves every node suspended or blocked
// and exits 1 (issue 31: it exited 0 after "✗ 0/9 ready"), in text and in
// -o json, whose summary names the nodes left suspended; --dry-run exits
// 0; a name that matches nothing exits 2 before anything is written.
func TestResumeExitCodesLive(t *testing.T) {
	w, g := suspendedGraph(t)
	text := runCLI(t, w, "resume", "--no-unsuspend")
	if text.Code != ExitFailure || !strings.Contains(text.Stderr, "✗ 0/9 ready") || !strings.Contains(text.Stderr, "left suspended (--no-unsuspend)") {
		t.Errorf("resume --no-unsuspend: exit %d, want %d with the summary and the nodes left suspended:\n%s", text.Code, ExitFailure, text.Stderr)
	}
	js := runCLI(t, w, "resume", "--no-unsuspend", "-o", "json")
	if js.Code != ExitFailure {
		t.Errorf("resume --no-unsuspend -o json: exit %d, want %d", js.Code, ExitFailure)
	}
	s := summaryOf(t, events(t, js.Stdout))
	if s.Ready != 0 || s.Blocked != 9 || len(s.LeftSuspended) != 2 {
		t.Errorf("summary %+v, want 9 blocked, the 2 roots left suspended", s)
	}
	if dry := runCLI(t, w, "resume", "--dry-run"); dry.Code != ExitOK || !strings.Contains(dry.Stdout, "Plan: 9 reconciles, 9 resumes, 0 CRDs to create.") {
		t.Errorf("resume --dry-run: exit %d, want 0 and the plan's count:\n%s", dry.Code, dry.Stdout)
	}
	if ghost := runCLI(t, w, "resume", g.apps+"/ghost"); ghost.Code != ExitUsage {
		t.Errorf("resume %s/ghost: exit %d, want %d", g.apps, ghost.Code, ExitUsage)
	}
	for _, k := range g.kss {
		if !getKS(t, w, k.Namespace, k.Name).Spec.Suspend {
			t.Errorf("Kustomization/%s/%s was resumed", k.Namespace, k.Name)
		}
	}
}

package printer

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

func walkNode(ns, name string) *tiers.ID {
	return &tiers.ID{Kind: "Kustomization", Namespace: ns, Name: name}
}

// walkEvents is a walk with every kind of event a printer shows: a node in
// each phase, a reconcile request, a diagnosis, a pre-apply that succeeds
// and one that fails, and a message of several lines too long for a row.
func walkEvents() ([]wait.Event, wait.Summary) {
	t0 := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	d := &crds.Diagnosis{Kustomization: *walkNode("flux-system", "apps"), Reason: "ReconciliationFailed",
		Missing: []crds.MissingType{{Group: "cdi.kubevirt.io", Kind: "StorageProfile", GroupKnown: true, Versions: []string{"v1beta1"}, Plural: "storageprofiles",
			CRDName: "storageprofiles.cdi.kubevirt.io", BundleFile: "bootstrap/crds/sp.yaml", Objects: []crds.ObjectRef{{Kind: "StorageProfile", Name: "local"}}}}}
	evs := []wait.Event{
		{Time: t0, Type: wait.EventNode, Node: walkNode("flux-system", "infra"), Tier: 0, Phase: wait.PhasePending, Message: "waiting for dependencies"},
		{Time: t0.Add(time.Millisecond), Type: wait.EventAction, Node: walkNode("flux-system", "infra"), Action: string(wait.ActionReconcile), Message: "requested"},
		{Time: t0.Add(2 * time.Millisecond), Type: wait.EventNode, Node: walkNode("flux-system", "infra"), Tier: 0, Phase: wait.PhaseReconciling, Message: "Reconciliation in progress\nsecond line", Elapsed: wait.Duration(1500 * time.Millisecond)},
		{Time: t0.Add(3 * time.Second), Type: wait.EventNode, Node: walkNode("flux-system", "infra"), Tier: 0, Phase: wait.PhaseReady, Message: "Applied revision: main@sha1:abc", Elapsed: wait.Duration(3 * time.Second)},
		{Time: t0.Add(4 * time.Second), Type: wait.EventNode, Node: walkNode("flux-system", "apps"), Tier: 1, Phase: wait.PhaseFailed, Reason: "ReconciliationFailed", Message: "  StorageProfile/local dry-run failed: no matches for kind \"StorageProfile\" in version \"cdi.kubevirt.io/v1beta1\" and this message is long enough to be truncated in the live view\nmore", Elapsed: wait.Duration(time.Second)},
		{Time: t0.Add(4500 * time.Millisecond), Type: wait.EventDiagnosis, Node: walkNode("flux-system", "apps"), Tier: 1, Reason: "Deadlock", Message: "suspected cold-start deadlock", Diagnosis: d},
		{Time: t0.Add(5 * time.Second), Type: wait.EventDiagnosis, Node: walkNode("flux-system", "apps"), Tier: 1, Reason: "Deadlock", Message: "cold-start deadlock proven", Diagnosis: d,
			Proof: &wait.Proof{Kind: wait.ProofCertain, Reason: "nothing can create the missing CRDs"}},
		{Time: t0.Add(6 * time.Second), Type: wait.EventAction, Node: walkNode("flux-system", "apps"), Action: "pre-apply-crds", Message: "created storageprofiles.cdi.kubevirt.io"},
		{Time: t0.Add(7 * time.Second), Type: wait.EventAction, Node: walkNode("flux-system", "apps"), Action: "pre-apply-crds", Reason: "Failed", Message: "forbidden"},
		{Time: t0.Add(8 * time.Second), Type: wait.EventNode, Node: walkNode("flux-system", "web"), Tier: 2, Phase: wait.PhaseBlocked, Message: "dependency flux-system/apps failed"},
		{Time: t0.Add(9 * time.Second), Type: wait.EventNode, Node: walkNode("default", "zeta"), Tier: 1, Phase: wait.PhaseRemediating, Message: "pre-applying CRDs"},
		{Time: t0.Add(10 * time.Second), Type: wait.EventNode, Tier: 0, Phase: wait.PhasePending, Message: "walk-level"},
	}
	s := wait.Summary{Ready: 1, Failed: 1, Blocked: 1, Pending: 1, Total: 4, Mutations: 3, Elapsed: wait.Duration(10 * time.Second), Interrupted: true}
	return evs, s
}

// poolLimit is a 300-node walk held back by kustomize-controller's workers.
func poolLimit() *wait.Limit {
	sec := func(s float64) wait.Duration { return wait.Duration(time.Duration(s * float64(time.Second))) }
	return &wait.Limit{Kind: wait.LimitWorkers, Reconciles: 300, CriticalPath: sec(41), Chain: []tiers.ID{*walkNode("apps", "a"), *walkNode("apps", "b")},
		Work: sec(212.4), Workers: 4, ThroughputBound: sec(53.1), Waited: 241, MeanWait: sec(2.1), MaxWait: sec(9.8), Concurrent: 8, Saving: sec(12.1)}
}

// chainLimit is a walk held back by a chain of six, one reconcile waiting.
func chainLimit() *wait.Limit {
	sec := func(s float64) wait.Duration { return wait.Duration(time.Duration(s * float64(time.Second))) }
	var chain []tiers.ID
	for _, name := range []string{"root", "infra", "platform", "operators", "config", "apps"} {
		chain = append(chain, *walkNode("flux-system", name))
	}
	return &wait.Limit{Kind: wait.LimitChain, Reconciles: 7, CriticalPath: sec(42.1), Chain: chain,
		Work: sec(48), Workers: 2, ThroughputBound: sec(24), Waited: 1, MeanWait: sec(0.3), MaxWait: sec(1.4)}
}

// TestWalkPrintersGolden: the plain lines (CI logs) and the live view, with
// and without colour, and NDJSON, byte for byte.
func TestWalkPrintersGolden(t *testing.T) {
	evs, s := walkEvents()
	ok := wait.Summary{Ready: 4, Total: 4, Mutations: 2, Elapsed: wait.Duration(2500 * time.Millisecond)}
	pooled, chained := ok, ok
	pooled.Limit, chained.Limit = poolLimit(), chainLimit()
	for _, color := range []bool{false, true} {
		suffix := ""
		if color {
			suffix = "-color"
		}
		t.Run("plain"+suffix, func(t *testing.T) {
			var out bytes.Buffer
			p := newPlainWalk(&out, &out, NewStyles(&out, color), nil, plainClock{})
			for _, e := range evs {
				p.Event(e)
			}
			p.Close(s)
			p.Close(ok)
			p.Close(pooled)
			p.Close(chained)
			compareGolden(t, filepath.Join("testdata", "walk", "plain"+suffix+".golden"), out.Bytes())
		})
		t.Run("live"+suffix, func(t *testing.T) {
			var out bytes.Buffer
			clock := &testClock{}
			p := newLiveWalk(&out, NewStyles(&out, color), liveTerminal{
				Size: func() (int, int, bool) { return 100, 30, true },
				Now:  clock.now,
			})
			for _, e := range evs {
				clock.set(e.Time.Add(500 * time.Millisecond))
				p.Event(e)
			}
			p.Close(s)
			compareGolden(t, filepath.Join("testdata", "walk", "live"+suffix+".golden"), out.Bytes())
		})
	}
	t.Run("ndjson", func(t *testing.T) {
		var out bytes.Buffer
		p := NewWalkPrinter(&out, io.Discard, WalkOptions{Format: FormatJSON})
		for _, e := range evs {
			p.Event(e)
		}
		compareGolden(t, filepath.Join("testdata", "walk", "ndjson.golden"), out.Bytes())
		out.Reset()
		p.Close(s)
		var last wait.Event
		if err := json.Unmarshal(out.Bytes(), &last); err != nil || last.Type != wait.EventSummary || last.Summary == nil || last.Summary.Total != s.Total {
			t.Errorf("Close wrote %q (%v), want the summary event", out.String(), err)
		}
	})
}

// TestNewWalkPrinterChooses: -o json is NDJSON on stdout; otherwise
// progress goes to stderr, plain lines when it is not a terminal, and only
// the summary with -q.
func TestNewWalkPrinterChooses(t *testing.T) {
	evs, s := walkEvents()
	tests := []struct {
		name            string
		opts            WalkOptions
		wantOut         string // a substring of stdout, "" for none
		wantErrLines    int
		wantErrContains string
	}{
		{name: "json", opts: WalkOptions{Format: FormatJSON}, wantOut: `"type":"summary"`},
		{name: "text, not a terminal", opts: WalkOptions{Format: FormatText}, wantErrLines: len(evs) - 2 + 2 /* infra's first wait and its superseded progress out; the proof's explanation and the summary in */, wantErrContains: "10:00:03.000 ✔ Kustomization/flux-system/infra Applied revision: main@sha1:abc"},
		{name: "quiet", opts: WalkOptions{Format: FormatText, Quiet: true}, wantErrLines: 1, wantErrContains: "✗ 1/4 ready"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			p := NewWalkPrinter(&out, &errOut, tt.opts)
			for _, e := range evs {
				p.Event(e)
			}
			p.Close(s)
			if tt.wantOut == "" && out.Len() > 0 || !strings.Contains(out.String(), tt.wantOut) {
				t.Errorf("stdout = %q, want %q", out.String(), tt.wantOut)
			}
			if n := strings.Count(errOut.String(), "\n"); n != tt.wantErrLines || !strings.Contains(errOut.String(), tt.wantErrContains) {
				t.Errorf("stderr has %d lines, want %d with %q:\n%s", n, tt.wantErrLines, tt.wantErrContains, errOut.String())
			}
			if strings.Contains(errOut.String(), "\x1b[") {
				t.Errorf("colour on a stream that is not a terminal:\n%q", errOut.String())
			}
		})
	}
}

func TestSummaryLine(t *testing.T) {
	tests := []struct {
		name string
		s    wait.Summary
		want string
	}{
		{name: "all ready", s: wait.Summary{Ready: 3, Total: 3, Mutations: 3, Elapsed: wait.Duration(1250 * time.Millisecond)},
			want: "✔ 3/3 ready, 0 failed, 0 blocked in 1.2s (3 mutations)"},
		{name: "failed", s: wait.Summary{Ready: 1, Failed: 1, Total: 2, Elapsed: wait.Duration(time.Minute)},
			want: "✗ 1/2 ready, 1 failed, 0 blocked in 60.0s (0 mutations)"},
		{name: "blocked", s: wait.Summary{Blocked: 2, Total: 2},
			want: "✗ 0/2 ready, 0 failed, 2 blocked in 0.0s (0 mutations)"},
		{name: "interrupted with nodes unfinished", s: wait.Summary{Ready: 1, Pending: 2, Total: 3, Interrupted: true},
			want: "✗ 1/3 ready, 0 failed, 0 blocked in 0.0s (0 mutations), 2 unfinished, interrupted"},
		{name: "nothing to walk", want: "✔ 0/0 ready, 0 failed, 0 blocked in 0.0s (0 mutations)"},
		{name: "stopped by an error before anything was walked", s: wait.Summary{Error: "Kustomization cycle: flux-system/a -> flux-system/b -> flux-system/a"},
			want: "✗ 0/0 ready, 0 failed, 0 blocked in 0.0s (0 mutations), stopped: Kustomization cycle: flux-system/a -> flux-system/b -> flux-system/a"},
		{name: "interrupted before anything was walked", s: wait.Summary{Interrupted: true},
			want: "✗ 0/0 ready, 0 failed, 0 blocked in 0.0s (0 mutations), interrupted"},
		{name: "one mutation", s: wait.Summary{Ready: 1, Total: 1, Mutations: 1, Elapsed: wait.Duration(time.Second)},
			want: "✔ 1/1 ready, 0 failed, 0 blocked in 1.0s (1 mutation)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := summaryLine(tt.s, NewStyles(io.Discard, false)); got != tt.want {
				t.Errorf("summaryLine() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestEventLine(t *testing.T) {
	tests := []struct {
		name string
		e    wait.Event
		want string
	}{
		{name: "ready", e: wait.Event{Type: wait.EventNode, Node: walkNode("a", "b"), Phase: wait.PhaseReady, Message: "Applied revision: main@sha1:1"},
			want: "✔ Kustomization/a/b Applied revision: main@sha1:1"},
		{name: "failed: reason and the first line only", e: wait.Event{Type: wait.EventNode, Node: walkNode("a", "b"), Phase: wait.PhaseFailed, Reason: "BuildFailed", Message: "\n kustomization path not found\nmore"},
			want: "✗ Kustomization/a/b BuildFailed: kustomization path not found"},
		{name: "blocked", e: wait.Event{Type: wait.EventNode, Node: walkNode("a", "b"), Phase: wait.PhaseBlocked, Message: "dependency a/x failed"},
			want: "⊘ Kustomization/a/b dependency a/x failed"},
		{name: "pending, no node", e: wait.Event{Type: wait.EventNode, Phase: wait.PhasePending, Message: "waiting"},
			want: "… pending: waiting"},
		{name: "reconciling: how long, the controller's message and reason", e: wait.Event{Type: wait.EventNode, Node: walkNode("a", "b"), Phase: wait.PhaseReconciling,
			Reason: "Progressing", Message: "Running health checks for revision main@sha1:1 with a timeout of 2m0s", Elapsed: wait.Duration(61 * time.Second)},
			want: "… Kustomization/a/b reconciling, 1m01s: Running health checks for revision main@sha1:1 with a timeout of 2m0s (Progressing)"},
		{name: "action", e: wait.Event{Type: wait.EventAction, Node: walkNode("a", "b"), Action: "reconcile", Message: "requested"},
			want: "► Kustomization/a/b reconcile: requested"},
		{name: "action failed", e: wait.Event{Type: wait.EventAction, Node: walkNode("a", "b"), Action: "reconcile", Reason: "Failed", Message: "forbidden"},
			want: "✗ Kustomization/a/b reconcile failed: forbidden"},
		{name: "diagnosis without details", e: wait.Event{Type: wait.EventDiagnosis, Node: walkNode("a", "b"), Message: "deadlock suspected"},
			want: "! Kustomization/a/b deadlock suspected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := eventLine(tt.e, NewStyles(io.Discard, false), newWalkNotes(nil)); got != tt.want {
				t.Errorf("eventLine() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFirstLineAndFit(t *testing.T) {
	lines := []struct{ in, want string }{
		{"", ""},
		{"one", "one"},
		{"  padded  \nsecond", "padded  "}, // only the whole message is trimmed
		{"\n\nafter blank lines\nx", "after blank lines"},
	}
	for _, tt := range lines {
		if got := firstLine(tt.in); got != tt.want {
			t.Errorf("firstLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// fit leaves the last column free: a line of width-1 cells fits.
	cuts := []struct {
		in    string
		width int
		want  string
	}{
		{"short", 11, "short"},
		{"exactly10!", 11, "exactly10!"},
		{"one too long", 12, "one too lo…"},
		{"ñandú ñandú", 6, "ñand…"},
		{"\x1b[1mbold and long\x1b[0m", 8, "\x1b[1mbold a…\x1b[0m"},
	}
	for _, tt := range cuts {
		if got := fit(tt.in, tt.width); got != tt.want {
			t.Errorf("fit(%q, %d) = %q, want %q", tt.in, tt.width, got, tt.want)
		}
	}
}

package printer

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

// viewAt returns the live view of walk40 after its first n events, and the
// time of the last.
func viewAt(n int) (*liveView, time.Time) {
	evs, _ := walk40()
	v := &liveView{start: evs[0].Time}
	for _, e := range evs[:n] {
		if e.Type == wait.EventNode {
			v.update(e)
		}
	}
	return v, evs[n-1].Time
}

// TestLiveViewFits: at every size and every point of the walk, the view
// keeps to its rows and leaves the last column free, with colour or not.
func TestLiveViewFits(t *testing.T) {
	evs, _ := walk40()
	for _, width := range []int{1, 20, 40, 57, 80, 133, 200, 300} {
		for _, maxLines := range []int{0, 1, 2, 5, 7, 23, 49} {
			for n := 1; n <= len(evs); n += 13 {
				v, now := viewAt(n)
				for _, color := range []bool{false, true} {
					lines := v.lines(now, width, maxLines, true, NewStyles(nil, color))
					if len(lines) > maxLines {
						t.Fatalf("%d×%d after %d events: %d lines", width, maxLines, n, len(lines))
					}
					for _, l := range lines {
						if w := ansi.StringWidth(l); w > max(1, width-1) {
							t.Fatalf("%d×%d after %d events: a line of %d cells: %q", width, maxLines, n, w, l)
						}
					}
				}
			}
		}
	}
}

// TestLiveViewLayout: what the view shows as the rows grow scarce.
func TestLiveViewLayout(t *testing.T) {
	plain := NewStyles(nil, false)
	tests := []struct {
		name       string
		events     int // of walk40
		width      int
		maxLines   int
		withHeader bool
		want       []string
	}{
		{
			name: "a tier under way shows its rows; finished and idle tiers a line each", events: 74, width: 100, maxLines: 16, withHeader: true,
			want: []string{
				"Kustomizations · 5.7s · 6/40 ready, 8 running, 26 waiting",
				"tier 0  6/6 ready",
				"tier 1  0/8 ready, 8 running",
				"  flux-system/infra-configs-00 reconciling   0.0s  Progressing: Reconciliation in progress",
				"  flux-system/infra-configs-01 reconciling   0.0s  Progressing: Reconciliation in progress",
				"  flux-system/infra-configs-02 reconciling   0.0s  Progressing: Reconciliation in progress",
				"  flux-system/infra-configs-03 reconciling   0.0s  Progressing: Reconciliation in progress",
				"  flux-system/infra-configs-04 reconciling   0.0s  Progressing: Reconciliation in progress",
				"  flux-system/infra-configs-05 reconciling   0.0s  Progressing: Reconciliation in progress",
				"  flux-system/infra-configs-06 reconciling   0.0s  Progressing: Reconciliation in progress",
				"  flux-system/infra-configs-07 reconciling   0.0s  Progressing: Reconciliation in progress",
				"tier 2  0/10 ready, 10 waiting",
				"tier 3  0/8 ready, 8 waiting",
				"tier 4  0/5 ready, 5 waiting",
				"tier 5  0/3 ready, 3 waiting",
			},
		},
		{
			name: "too few rows for a line per tier: idle tiers share one", events: 74, width: 100, maxLines: 6, withHeader: true,
			want: []string{
				"Kustomizations · 5.7s · 6/40 ready, 8 running, 26 waiting",
				"tier 0  6/6 ready",
				"tier 1  0/8 ready, 8 running",
				"  flux-system/infra-configs-00 reconciling   0.0s  Progressing: Reconciliation in progress",
				"  flux-system/infra-configs-01 reconciling   0.0s  Progressing: Reconciliation in progress",
				"tiers 2–5  0/26 ready, 26 waiting",
			},
		},
		{
			name: "too few rows for the tiers: the rest counted", events: 74, width: 100, maxLines: 3, withHeader: true,
			want: []string{
				"Kustomizations · 5.7s · 6/40 ready, 8 running, 26 waiting",
				"tier 0  6/6 ready",
				"… 5 more tiers",
			},
		},
		{
			name: "the end: failed, running and blocked nodes before ready ones", events: 160, width: 100, maxLines: 9, withHeader: false,
			want: []string{
				"tier 0  6/6 ready",
				"tier 1  8/8 ready",
				"tier 2  9/10 ready, 1 failed",
				"  platform/platform-services-02  failed        2.4s  timeout waiting for: [Deployment/platform/ing…",
				"tier 3  6/8 ready, 2 blocked",
				"  monitoring/monitoring-stack-02 blocked       0.0s  dependency platform/platform-services-02 fail…",
				"tier 4  4/5 ready, 1 blocked",
				"tier 5  2/3 ready, 1 running",
				"  tenants/tenants-02             reconciling   2.4s  Progressing: Running health checks for revisi…",
			},
		},
		{
			name: "narrow: names cut in the middle, no message", events: 74, width: 40, maxLines: 4, withHeader: false,
			want: []string{
				"tier 0  6/6 ready",
				"tier 1  0/8 ready, 8 running",
				"  flux-sy…nfigs-00 reconciling   0.0s",
				"tiers 2–5  0/26 ready, 26 waiting",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, now := viewAt(tt.events)
			got := v.lines(now, tt.width, tt.maxLines, tt.withHeader, plain)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestLiveViewTicks: the elapsed time of a node under way grows with the
// clock, with no event; that of a finished node stays.
func TestLiveViewTicks(t *testing.T) {
	t0 := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	v := &liveView{start: t0}
	v.update(wait.Event{Time: t0.Add(time.Second), Type: wait.EventNode, Node: walkNode("a", "running"), Phase: wait.PhaseReconciling, Elapsed: wait.Duration(time.Second)})
	v.update(wait.Event{Time: t0.Add(time.Second), Type: wait.EventNode, Node: walkNode("a", "ready"), Phase: wait.PhaseReady, Elapsed: wait.Duration(time.Second)})
	for _, tt := range []struct {
		after                  time.Duration
		header, running, ready string
	}{
		{after: time.Second, header: "· 1.0s ·", running: "1.0s", ready: "1.0s"},
		{after: 66 * time.Second, header: "· 1m06s ·", running: "1m06s", ready: "1.0s"},
	} {
		lines := v.lines(t0.Add(tt.after), 80, 10, true, NewStyles(nil, false))
		if !strings.Contains(lines[0], tt.header) {
			t.Errorf("after %s the header reads %q, want %q", tt.after, lines[0], tt.header)
		}
		for _, l := range lines {
			if strings.Contains(l, "a/ready") && !strings.Contains(l, " "+tt.ready) {
				t.Errorf("after %s the finished node reads %q, want %s", tt.after, l, tt.ready)
			}
			if strings.Contains(l, "a/running") && !strings.Contains(l, " "+tt.running) {
				t.Errorf("after %s the running node reads %q, want %s", tt.after, l, tt.running)
			}
		}
	}
}

func TestFormatElapsed(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want string
	}{
		{-time.Second, "0.0s"}, {0, "0.0s"}, {700 * time.Millisecond, "0.7s"}, {59900 * time.Millisecond, "59.9s"},
		{64 * time.Second, "1m04s"}, {12*time.Minute + 5*time.Second, "12m05s"}, {62 * time.Minute, "1h02m"}, {100 * time.Hour, "100h00m"},
	} {
		if got := formatElapsed(tt.d); got != tt.want {
			t.Errorf("formatElapsed(%s) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

func TestCutMiddle(t *testing.T) {
	for _, tt := range []struct {
		s    string
		n    int
		want string
	}{
		{"flux-system/infra-controllers-01", 40, "flux-system/infra-controllers-01"},
		{"flux-system/infra-controllers-01", 16, "flux-sy…llers-01"},
		{"abc", 1, "a"},
		{"abc", 0, ""},
		{"ñandú/ñu", 5, "ña…ñu"},
	} {
		if got := cutMiddle(tt.s, tt.n); got != tt.want {
			t.Errorf("cutMiddle(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}

func TestPrintable(t *testing.T) {
	in := "ok\tnext\r\x1b[2Jcleared\nsecond\x07"
	if got, want := printable(in), "ok next[2Jcleared\nsecond"; got != want {
		t.Errorf("printable(%q) = %q, want %q", in, got, want)
	}
}

func TestWrapLines(t *testing.T) {
	note := "! Kustomization/a/b cold-start deadlock proven\n    Kustomization a/b cannot apply: its server-side dry-run failed on kinds the API server does not serve."
	want := []string{
		"! Kustomization/a/b cold-start deadlock",
		"  proven",
		"    Kustomization a/b cannot apply: its",
		"    server-side dry-run failed on kinds",
		"    the API server does not serve.",
	}
	got := wrapLines(note, 42)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("wrapLines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, l := range got {
		if len(l) >= 42 {
			t.Errorf("%q reaches the last column", l)
		}
	}
}

func TestRowsAfterResize(t *testing.T) {
	drawn := []int{79, 40, 10}
	for _, tt := range []struct {
		width, want int
	}{
		{80, 3}, {200, 3}, // as wide or wider: nothing reflows
		{40, 2 + 1 + 1}, // 79 cells take two rows of 40
		{30, 3 + 2 + 1},
		{0, 3}, // no size told
	} {
		if got := rowsAfterResize(drawn, 80, tt.width); got != tt.want {
			t.Errorf("rowsAfterResize(%v, 80, %d) = %d, want %d", drawn, tt.width, got, tt.want)
		}
	}
}

func TestLiveFits(t *testing.T) {
	for _, tt := range []struct {
		width, height int
		want          bool
	}{
		{80, 24, true}, {40, 8, true}, {39, 24, false}, {80, 7, false}, {0, 0, false},
	} {
		if got := liveFits(tt.width, tt.height); got != tt.want {
			t.Errorf("liveFits(%d, %d) = %t, want %t", tt.width, tt.height, got, tt.want)
		}
	}
}

// TestLiveViewNamesKindsWhenTheyMix: a walk of Kustomizations alone names
// rows namespace/name; once a HelmRelease joins, every row carries its
// kind, as the plain lines do, and the header says both kinds.
func TestLiveViewNamesKindsWhenTheyMix(t *testing.T) {
	t0 := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	v := &liveView{start: t0}
	ks := &tiers.ID{Kind: "Kustomization", Namespace: "apps", Name: "web"}
	v.update(wait.Event{Time: t0, Type: wait.EventNode, Node: ks, Phase: wait.PhaseReconciling})
	lines := v.lines(t0, 80, 10, true, NewStyles(nil, false))
	if !strings.HasPrefix(lines[0], "Kustomizations · ") || !strings.Contains(strings.Join(lines, "\n"), "  apps/web ") {
		t.Fatalf("Kustomizations alone:\n%s", strings.Join(lines, "\n"))
	}
	hr := &tiers.ID{Kind: "HelmRelease", Namespace: "apps", Name: "web"}
	v.update(wait.Event{Time: t0, Type: wait.EventNode, Node: hr, Phase: wait.PhasePending})
	all := strings.Join(v.lines(t0, 80, 10, true, NewStyles(nil, false)), "\n")
	for _, want := range []string{"Kustomizations and HelmReleases · ", "  Kustomization/apps/web ", "  HelmRelease/apps/web "} {
		if !strings.Contains(all, want) {
			t.Errorf("mixed view lacks %q:\n%s", want, all)
		}
	}
}

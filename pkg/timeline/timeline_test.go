package timeline

import (
	"bytes"
	"encoding/xml"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

var update = flag.Bool("update", false, "rewrite the golden files")

var t0 = time.Date(2026, 12, 3, 3, 0, 0, 0, time.UTC)

func ks(name string) *tiers.ID {
	return &tiers.ID{Kind: "Kustomization", Namespace: "flux-system", Name: name}
}

// walkEvents is the seed's walk, shortened: platform reconciles; apps is
// stuck on a missing kind, standup pre-applies the CRD and it goes on;
// vms waits on apps; a fourth node is never finished.
func walkEvents() []wait.Event {
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	node := func(s float64, id *tiers.ID, tier int, p wait.Phase) wait.Event {
		return wait.Event{Time: at(s), Type: wait.EventNode, Node: id, Tier: tier, Phase: p}
	}
	platform, apps, vms, slow := ks("platform"), ks("apps"), ks("vms"), ks("slow")
	return []wait.Event{
		node(0, platform, 0, wait.PhasePending), node(0, apps, 1, wait.PhasePending), node(0, vms, 2, wait.PhasePending), node(0, slow, 1, wait.PhasePending),
		node(0.5, platform, 0, wait.PhaseReconciling),
		{Time: at(0.5), Type: wait.EventAction, Node: platform, Action: "reconcile"},
		node(2, platform, 0, wait.PhaseReady),
		node(2, apps, 1, wait.PhaseReconciling), node(2, slow, 1, wait.PhaseReconciling),
		{Time: at(2.5), Type: wait.EventDiagnosis, Node: apps, Tier: 1, Message: "suspected cold-start deadlock; proving it"},
		{Time: at(3), Type: wait.EventDiagnosis, Node: apps, Tier: 1, Message: "cold-start deadlock proven: ..."},
		node(3, apps, 1, wait.PhaseRemediating),
		node(3.2, apps, 1, wait.PhaseReconciling),
		node(5, apps, 1, wait.PhaseReady),
		node(5, vms, 2, wait.PhaseReconciling),
		node(6, vms, 2, wait.PhaseCRDs),
		node(7, vms, 2, wait.PhaseReady),
		{Time: at(8), Type: wait.EventSummary, Summary: &wait.Summary{}},
	}
}

func TestFromEvents(t *testing.T) {
	tl := FromEvents("standup resume", t0, walkEvents())
	s := func(st State, from, to float64) Span {
		return Span{State: st, From: time.Duration(from * float64(time.Second)), To: time.Duration(to * float64(time.Second))}
	}
	want := []Bar{
		{Node: *ks("platform"), Tier: 0, Spans: []Span{s(Waiting, 0, 0.5), s(Reconciling, 0.5, 2)}, Outcome: Ready, End: 2 * time.Second},
		{Node: *ks("apps"), Tier: 1, Spans: []Span{s(Waiting, 0, 2), s(Reconciling, 2, 2.5), s(Stuck, 2.5, 3), s(Remediating, 3, 3.2), s(Reconciling, 3.2, 5)}, Outcome: Ready, End: 5 * time.Second},
		{Node: *ks("slow"), Tier: 1, Spans: []Span{s(Waiting, 0, 2), s(Reconciling, 2, 8)}, Outcome: Unfinished, End: 8 * time.Second},
		{Node: *ks("vms"), Tier: 2, Spans: []Span{s(Waiting, 0, 5), s(Reconciling, 5, 6), s(CRDs, 6, 7)}, Outcome: Ready, End: 7 * time.Second},
	}
	if !reflect.DeepEqual(tl.Bars, want) {
		t.Errorf("bars:\n got %+v\nwant %+v", tl.Bars, want)
	}
	if tl.Total != 8*time.Second {
		t.Errorf("total %s, want 8s", tl.Total)
	}
	if got := tl.Bars[1].Time(Waiting); got != 2*time.Second {
		t.Errorf("apps waited %s, want 2s", got)
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update to accept):\n%s", name, got)
	}
}

func TestMermaid(t *testing.T) {
	var b bytes.Buffer
	if err := FromEvents("standup resume: seed", t0, walkEvents()).Mermaid(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "walk.mmd", b.Bytes())
	if strings.Count(b.String(), "section tier") != 3 || !strings.Contains(b.String(), "flux-system/apps stuck :crit, ") {
		t.Errorf("mermaid:\n%s", b.String())
	}
}

// The SVG is XML a browser opens as it is: it parses, holds one bar per
// node, and matches its golden file.
func TestSVG(t *testing.T) {
	var b bytes.Buffer
	tl := FromEvents("standup resume: <seed> & co", t0, walkEvents())
	if err := tl.SVG(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "walk.svg", b.Bytes())
	dec := xml.NewDecoder(bytes.NewReader(b.Bytes()))
	bars, rects := 0, 0
	for {
		tok, err := dec.Token()
		if err != nil {
			if err.Error() != "EOF" {
				t.Fatalf("the SVG does not parse as XML: %v", err)
			}
			break
		}
		if se, ok := tok.(xml.StartElement); ok {
			for _, a := range se.Attr {
				if se.Name.Local == "g" && a.Name.Local == "class" && a.Value == "bar" {
					bars++
				}
			}
			if se.Name.Local == "rect" {
				rects++
			}
		}
	}
	if bars != len(tl.Bars) || bars != 4 {
		t.Errorf("%d bars in the SVG, want one per node (%d)", bars, len(tl.Bars))
	}
	if strings.Contains(b.String(), "<script") || strings.Contains(b.String(), "href=") {
		t.Error("the SVG is not self-contained")
	}
}

// TestFromEventsQueued: a reconcile is Queued from standup's request until
// the controller is seen on it, and Bar.Pass is the reconcile that ended
// Ready: from the last take-up (or the last request, when none was seen)
// to Ready. The events are the walker's, reasons and all.
func TestFromEventsQueued(t *testing.T) {
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	span := func(st State, from, to float64) Span { return Span{State: st, From: sec(from), To: sec(to)} }
	const diagnosis wait.Phase = "(suspected deadlock)"
	type step struct {
		at     float64
		phase  wait.Phase // "" for a reconcile action, diagnosis for a diagnosis
		reason string
	}
	tests := []struct {
		name  string
		steps []step
		want  []Span
		out   Outcome
		pass  float64 // -1: none
	}{
		{"taken up", []step{{0, wait.PhasePending, "DependencyNotReady"}, {1, wait.PhaseReconciling, "Requested"}, {1.01, "", "Requested"}, {1.5, wait.PhaseReconciling, "Progressing"}, {3, wait.PhaseReady, "Ready"}},
			[]Span{span(Waiting, 0, 1), span(Queued, 1, 1.5), span(Reconciling, 1.5, 3)}, Ready, 1.5},
		{"too quick to be seen", []step{{0, wait.PhasePending, "DependencyNotReady"}, {1, wait.PhaseReconciling, "Requested"}, {1.01, "", "Requested"}, {1.3, wait.PhaseReady, "Ready"}},
			[]Span{span(Waiting, 0, 1), span(Reconciling, 1, 1.3)}, Ready, 0.3},
		// The controller found a dependency not Ready; standup asked again
		// at 2 s; the second pass, taken up at 4 s, is the one measured,
		// and the CRDs' wait after Ready is not.
		{"asked again after a dependency", []step{{1, wait.PhaseReconciling, "Requested"}, {1.2, wait.PhaseReconciling, "Progressing"}, {2, "", "Requested"}, {4, wait.PhaseReconciling, "Progressing"}, {5, wait.PhaseCRDs, "WaitingForCRDs"}, {6, wait.PhaseReady, "Ready"}},
			[]Span{span(Queued, 1, 1.2), span(Reconciling, 1.2, 2), span(Queued, 2, 4), span(Reconciling, 4, 5), span(CRDs, 5, 6)}, Ready, 1},
		{"asked again, second pass unseen", []step{{1, wait.PhaseReconciling, "Requested"}, {1.2, wait.PhaseReconciling, "Progressing"}, {2, "", "Requested"}, {2.5, wait.PhaseReady, "Ready"}},
			[]Span{span(Queued, 1, 1.2), span(Reconciling, 1.2, 2), span(Reconciling, 2, 2.5)}, Ready, 0.5},
		// A request repeated while the controller's health checks run:
		// the pass goes on.
		{"asked again mid-pass", []step{{1, wait.PhaseReconciling, "Requested"}, {1.2, wait.PhaseReconciling, "Progressing"}, {3, wait.PhaseReconciling, "AskedAgain"}, {3, "", "Requested"}, {3.5, wait.PhaseReconciling, "Progressing"}, {4, wait.PhaseReady, "Ready"}},
			[]Span{span(Queued, 1, 1.2), span(Reconciling, 1.2, 4)}, Ready, 2.8},
		{"never taken up", []step{{1, wait.PhaseReconciling, "Requested"}, {2, wait.PhaseReconciling, "Unacknowledged"}, {5, wait.PhaseFailed, "Timeout"}},
			[]Span{span(Queued, 1, 5)}, Failed, -1},
		// Stuck until Ready: no pass of its own to measure.
		{"stuck until Ready", []step{{1, wait.PhaseReconciling, "Requested"}, {1.2, wait.PhaseReconciling, "Progressing"}, {2, diagnosis, ""}, {2, wait.PhaseReconciling, "SuspectedDeadlock"}, {4, wait.PhaseReady, "Ready"}},
			[]Span{span(Queued, 1, 1.2), span(Reconciling, 1.2, 2), span(Stuck, 2, 4)}, Ready, -1},
		// The missing CRDs appeared: standup asks again, and that pass is
		// measured; a dry-run failure seen while queued was a pass.
		{"stuck, then the CRDs appeared", []step{{1, wait.PhaseReconciling, "Requested"}, {2, diagnosis, ""}, {3, wait.PhaseReconciling, "CRDsAppeared"}, {3, "", "Requested"}, {3.5, wait.PhaseReconciling, "Progressing"}, {4.5, wait.PhaseReady, "Ready"}},
			[]Span{span(Reconciling, 1, 2), span(Stuck, 2, 3), span(Queued, 3, 3.5), span(Reconciling, 3.5, 4.5)}, Ready, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := ks("n")
			var evs []wait.Event
			for _, s := range tt.steps {
				e := wait.Event{Time: at(s.at), Type: wait.EventNode, Node: n, Phase: s.phase, Reason: s.reason}
				switch s.phase {
				case "":
					e = wait.Event{Time: at(s.at), Type: wait.EventAction, Node: n, Action: string(wait.ActionReconcile), Reason: s.reason}
				case diagnosis:
					e = wait.Event{Time: at(s.at), Type: wait.EventDiagnosis, Node: n, Phase: wait.PhaseReconciling, Reason: "Deadlock", Message: "suspected cold-start deadlock; proving it"}
				}
				evs = append(evs, e)
			}
			b := FromEvents("t", t0, evs).Bars[0]
			if !reflect.DeepEqual(b.Spans, tt.want) || b.Outcome != tt.out {
				t.Errorf("spans %+v %s\nwant %+v %s", b.Spans, b.Outcome, tt.want, tt.out)
			}
			d, ok := b.Pass()
			if want := sec(tt.pass); ok != (tt.pass >= 0) || (ok && d != want) {
				t.Errorf("pass %s %v, want %s", d, ok, want)
			}
		})
	}
}

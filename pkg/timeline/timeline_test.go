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

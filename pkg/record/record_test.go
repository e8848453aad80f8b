package record

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

var t0 = time.Date(2026, 12, 3, 3, 0, 0, 0, time.UTC)

func ks(name string) tiers.ID {
	return tiers.ID{Kind: "Kustomization", Namespace: "flux-system", Name: name}
}

// write records a small walk: header, graph, a node, an action, two
// requests, the summary.
func write(w *Writer) {
	a, b := ks("a"), ks("b")
	w.Header(Header{Command: []string{"standup", "resume", "--record", "r.ndjson"}, Standup: "v0.1.0", Started: t0})
	g, err := tiers.Build([]tiers.Node{{ID: a}, {ID: b, DependsOn: []tiers.Dependency{{ID: a}}}}, tiers.Options{})
	if err != nil {
		panic(err)
	}
	w.Graph(g)
	w.Event(wait.Event{Time: t0.Add(time.Second), Type: wait.EventNode, Node: &a, Phase: wait.PhaseReconciling})
	w.Request(t0.Add(time.Second), Request{Verb: "patch", Resource: "kustomizations.kustomize.toolkit.fluxcd.io", Path: "/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/flux-system/kustomizations/a", Code: 200})
	w.Event(wait.Event{Time: t0.Add(time.Second), Type: wait.EventAction, Node: &a, Action: "reconcile"})
	w.Request(t0.Add(2*time.Second), Request{Verb: "list", Resource: "customresourcedefinitions.apiextensions.k8s.io", Path: "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", Code: 200})
	w.Event(wait.Event{Time: t0.Add(3 * time.Second), Type: wait.EventSummary, Summary: &wait.Summary{Ready: 2, Total: 2, Mutations: 1}})
}

func TestRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf, 0)
	write(w)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rec, err := Read(&buf, "r.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	if rec.Header == nil || rec.Header.Command[1] != "resume" || rec.Header.Limit != DefaultLimit {
		t.Errorf("header %+v", rec.Header)
	}
	if rec.Graph == nil || len(rec.Graph.Nodes) != 2 || len(rec.Graph.Tiers) != 2 {
		t.Errorf("graph %+v", rec.Graph)
	}
	if len(rec.Events) != 3 || rec.Summary == nil || rec.Summary.Ready != 2 {
		t.Errorf("events %d, summary %+v", len(rec.Events), rec.Summary)
	}
	if len(rec.Request) != 2 || !rec.Request[0].Mutation() || rec.Request[1].Mutation() || !rec.Request[0].At.Equal(t0.Add(time.Second)) {
		t.Errorf("requests %+v", rec.Request)
	}
	if rec.Truncated || rec.Dropped != nil {
		t.Errorf("truncated %v, dropped %+v", rec.Truncated, rec.Dropped)
	}
}

// A run killed mid-line leaves a partial last line: the reader keeps what
// came before and says the record was cut.
func TestReadCutShort(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf, 0)
	write(w)
	data := buf.Bytes()
	cut := bytes.LastIndexByte(data[:len(data)-1], '\n') + 20 // into the summary line
	rec, err := Read(bytes.NewReader(data[:cut]), "r.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	if !rec.Truncated || rec.Summary != nil || len(rec.Events) != 2 || len(rec.Request) != 2 {
		t.Errorf("truncated %v, summary %+v, %d events, %d requests", rec.Truncated, rec.Summary, len(rec.Events), len(rec.Request))
	}
}

func TestReadRefuses(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"not a record", `{"a":1}` + "\n", "r.ndjson: line 1: schemaVersion 0, this standup reads 1"},
		{"no header", `{"schemaVersion":1,"type":"node","time":"2026-12-03T03:00:00Z","tier":0}` + "\n", "r.ndjson: no header line: not a standup record"},
		{"garbage mid-file", `{"schemaVersion":1,"type":"header","time":"2026-12-03T03:00:00Z","tier":0,"header":{"command":null,"standup":"","started":"2026-12-03T03:00:00Z","limit":1}}` + "\nnot json\n{}\n", "r.ndjson: line 2: not a record line"},
	}
	for _, tt := range tests {
		_, err := Read(strings.NewReader(tt.text), "r.ndjson")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}

// At its limit a record keeps what it is for (actions, decisions, the
// summary) and drops the rest, counted on a last line.
func TestLimitKeepsTheEssential(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf, 4096)
	a := ks("a")
	w.Header(Header{Started: t0})
	for i := range 200 {
		w.Event(wait.Event{Time: t0, Type: wait.EventNode, Node: &a, Message: strings.Repeat("x", i%7)})
		w.Request(t0, Request{Verb: "get", Resource: "kustomizations.kustomize.toolkit.fluxcd.io", Path: "/apis/x", Code: 200})
	}
	w.Event(wait.Event{Time: t0, Type: wait.EventAction, Node: &a, Action: "pre-apply-crds"})
	w.Event(wait.Event{Time: t0, Type: wait.EventSummary, Summary: &wait.Summary{Ready: 1, Total: 1}})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if buf.Len() > 4096+1024 {
		t.Errorf("record of %d bytes past its limit of 4096", buf.Len())
	}
	rec, err := Read(&buf, "r.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	if rec.Dropped == nil || rec.Dropped.Lines[wait.EventNode] == 0 || rec.Dropped.Lines[TypeRequest] == 0 {
		t.Fatalf("dropped %+v, want node and request lines counted", rec.Dropped)
	}
	kept := 0
	for _, e := range rec.Events {
		if e.Type == wait.EventNode {
			kept++
		}
	}
	if kept+rec.Dropped.Lines[wait.EventNode] != 200 {
		t.Errorf("%d node lines kept and %d dropped, want 200 in all", kept, rec.Dropped.Lines[wait.EventNode])
	}
	last := rec.Events[len(rec.Events)-2]
	if last.Type != wait.EventAction || rec.Summary == nil {
		t.Errorf("the action and the summary were not kept: %+v, %+v", last, rec.Summary)
	}
}

func TestCreateRefusesAnExistingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.ndjson")
	if err := os.WriteFile(path, []byte("evidence\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Create(path, 0)
	if err == nil || !strings.Contains(err.Error(), "the file exists; name a new one") {
		t.Fatalf("Create over a file: %v", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "evidence\n" {
		t.Errorf("the file was changed: %q", data)
	}
}

// TestReconciles: the measured reconcile of each node of a small record
// (testdata/measured.ndjson), pinned: infra from its take-up (0.25 s) to
// Ready (2.85 s); apps from the take-up of the request standup repeated
// after the controller parked it at DependencyNotReady (3.6 s) to Ready
// (4.1 s); the HelmRelease from its install's start (2.9 s) to Ready at
// 6.9 s, its CRDs' wait after left out. done was Ready already and slow
// never finished: no measure.
func TestReconciles(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "measured.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, err := Read(f, "measured.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	got := Analyze(rec).Reconciles()
	grafana := tiers.ID{Kind: "HelmRelease", Namespace: "monitoring", Name: "grafana"}
	want := map[tiers.ID]time.Duration{ks("infra"): 2600 * time.Millisecond, ks("apps"): 500 * time.Millisecond, grafana: 4 * time.Second}
	if len(got) != len(want) {
		t.Errorf("measured %v, want %v", got, want)
	}
	for id, d := range want {
		if got[id] != d {
			t.Errorf("%s: %s, want %s", id, got[id], d)
		}
	}
}

package bench

import (
	"maps"
	"os"
	"strings"
	"testing"

	"github.com/kubestandup/standup/pkg/wait"
)

// recordedWalk reads testdata/deadlock-standup.ndjson, what `standup resume
// -o json` printed in a deadlock-scenario run of the benchmark, recorded
// again whenever the walk changes: BENCH_OUT=DIR BENCH_PATTERN='Coldstart/deadlock'
// scripts/bench-coldstart.sh quick, then copy DIR/deadlock-0-standup.stdout.
func recordedWalk(t *testing.T) []wait.Event {
	t.Helper()
	data, err := os.ReadFile("testdata/deadlock-standup.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	events, err := ReadEvents(string(data))
	if err != nil {
		t.Fatal(err)
	}
	return events
}

// The recorded walk's summary, and its writes per Kustomization.
func TestEventsOfADeadlockWalk(t *testing.T) {
	events := recordedWalk(t)
	s, err := SummaryOf(events)
	if err != nil {
		t.Fatal(err)
	}
	// One write per Kustomization, plus the deadlock's two: the CRD
	// pre-applied for platform-config and the reconcile after it.
	if s.Ready != 7 || s.Total != 7 || s.Mutations != 10 {
		t.Fatalf("summary %+v, want 7/7 Ready and 10 mutations", s)
	}
	per := WritesPerNode(events)
	want := map[string]int{
		"flux-system/flux-system": 1, "flux-system/platform": 1, "flux-system/apps": 1, "flux-system/platform-operators": 1,
		// platform-config: its request, whose failure proves the deadlock at
		// once (no CDI exists), the CRD pre-applied and the reconcile after it.
		// apps-vms: its request, and again once cdi-operator made its CRD.
		"monitoring/monitoring": 1, "flux-system/platform-config": 3, "flux-system/apps-vms": 2,
	}
	if !maps.Equal(per, want) {
		t.Fatalf("WritesPerNode = %v, want %v", per, want)
	}
	patches := PatchesPerNode(events)
	want["flux-system/platform-config"] = 2 // the pre-applied CRD is not a patch of the Kustomization
	if !maps.Equal(patches, want) {
		t.Fatalf("PatchesPerNode = %v, want %v", patches, want)
	}
	total := 0
	for _, n := range per {
		total += n
	}
	if total != s.Mutations {
		t.Fatalf("%d writes counted, summary says %d", total, s.Mutations)
	}
}

func TestReadEventsErrors(t *testing.T) {
	tests := []struct {
		name, ndjson, wantErr string
	}{
		{name: "not JSON", ndjson: "{\"type\":\"node\"}\noops\n", wantErr: `"oops"`},
		{name: "no summary", ndjson: "{\"type\":\"node\"}\n", wantErr: "no summary"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			events, err := ReadEvents(tt.ndjson)
			if err == nil {
				_, err = SummaryOf(events)
			}
			wantErr(t, err, tt.wantErr)
		})
	}
}

func TestMostWrites(t *testing.T) {
	tests := []struct {
		per  map[string]int
		node string
		n    int
	}{
		{per: nil, node: "", n: 0},
		{per: map[string]int{"a/x": 1, "a/y": 3, "a/z": 2}, node: "a/y", n: 3},
		{per: map[string]int{"b/y": 2, "a/x": 2}, node: "a/x", n: 2},
	}
	for _, tt := range tests {
		if node, n := MostWrites(tt.per); node != tt.node || n != tt.n {
			t.Errorf("MostWrites(%v) = %s %d, want %s %d", tt.per, node, n, tt.node, tt.n)
		}
	}
}

// wantErr checks err against want, a substring of the expected error ("" for
// none), and reports whether the test should go on checking the result.
func wantErr(t *testing.T, err error, want string) bool {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Fatal(err)
		}
		return true
	}
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want one containing %q", err, want)
	}
	return false
}

package bench

import (
	"maps"
	"os"
	"strings"
	"testing"
	"time"
)

func ms(n float64) time.Duration { return time.Duration(n * float64(time.Millisecond)) }

func TestReconcileDurations(t *testing.T) {
	fixture, err := os.ReadFile("testdata/controller.log")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		log     string
		want    map[string]time.Duration
		wantErr string
	}{
		{
			name: "real log: first success per Kustomization, failures and non-JSON skipped",
			log:  string(fixture),
			want: map[string]time.Duration{
				"flux-system/bench-t00-01": ms(5832.740195),
				"flux-system/bench-t00-00": ms(5883.474986),
				"flux-system/bench-t01-01": ms(558.92929),
				"monitoring/monitoring":    1500 * time.Millisecond,
			},
		},
		{
			name: "top-level name and namespace when the Kustomization object is absent",
			log:  `{"msg":"Reconciliation finished in 2s, next run in 10m0s","namespace":"a","name":"b"}`,
			want: map[string]time.Duration{"a/b": 2 * time.Second},
		},
		{
			name: "another controller kind is ignored",
			log:  `{"msg":"Reconciliation finished in 2s, next run in 1m0s","controllerKind":"HelmRelease","namespace":"a","name":"b"}`,
			want: map[string]time.Duration{},
		},
		{
			name:    "an unparseable duration is an error",
			log:     `{"msg":"Reconciliation finished in soon, next run in 10m0s","namespace":"a","name":"b"}`,
			wantErr: "Kustomization/a/b",
		},
		{name: "empty log", log: "", want: map[string]time.Duration{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReconcileDurations(tt.log)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one naming %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestInNamespace(t *testing.T) {
	in := map[string]time.Duration{"a/x": 1, "a/y": 2, "ab/x": 3, "b/x": 4}
	got := InNamespace(in, "a")
	if want := map[string]time.Duration{"x": 1, "y": 2}; !maps.Equal(got, want) {
		t.Fatalf("InNamespace = %v, want %v", got, want)
	}
}

func TestFailedDurations(t *testing.T) {
	fixture, err := os.ReadFile("testdata/controller.log")
	if err != nil {
		t.Fatal(err)
	}
	got, err := FailedDurations(string(fixture) + `{"level":"error","msg":"Reconciliation failed after 9s, next try in 1m0s","controllerKind":"Kustomization","Kustomization":{"name":"platform-config","namespace":"flux-system"}}` + "\n")
	if err != nil {
		t.Fatal(err)
	}
	// The first failure counts, not a later one; successes do not.
	if want := map[string]time.Duration{"flux-system/platform-config": 2100 * time.Millisecond}; !maps.Equal(got, want) {
		t.Errorf("FailedDurations = %v, want %v", got, want)
	}
}

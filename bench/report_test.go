package bench

import (
	"flag"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubestandup/standup/pkg/kube"
	"github.com/kubestandup/standup/pkg/wait"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func run(flux, script, standup, bound float64, fluxConverged bool, patches int, rss int64) Run {
	return Run{
		Results: map[string]Measurement{
			FluxAlone:  {Elapsed: secs(flux), Converged: fluxConverged, Ready: 3, Total: 10},
			TierScript: {Elapsed: secs(script), Converged: true, Ready: 10, Total: 10},
			Standup:    {Elapsed: secs(standup), Converged: true, Ready: 10, Total: 10},
			Bound:      {Elapsed: secs(bound), Converged: true},
		},
		BoundPath: []string{"a", "b"},
		Standup: StandupUsage{
			Requests: Requests{
				{Verb: "list", Resource: "kustomizations.kustomize.toolkit.fluxcd.io"}:  2,
				{Verb: "watch", Resource: "kustomizations.kustomize.toolkit.fluxcd.io"}: 1,
				{Verb: "patch", Resource: "kustomizations.kustomize.toolkit.fluxcd.io"}: patches,
				{Verb: "get", Resource: "/api"}:                                         1,
			},
			MaxRSS: rss << 20, Mutations: patches, Kustomizations: 10,
			WritesPerNode:  map[string]int{"ns/a": patches - 9, "ns/b": 1},
			PatchesPerNode: map[string]int{"ns/a": min(patches-9, 2), "ns/b": 1},
		},
	}
}

// diagnosed gives r a deadlock diagnosis suspected and proven at the given
// seconds, both after one failed reconcile.
func diagnosed(r Run, suspected, proven float64) Run {
	r.Standup.Diagnosis = &DiagnosisTiming{Node: "flux-system/platform-config", Suspected: secs(suspected), Proven: secs(proven), Repaired: secs(proven + 0.2), FailedAtSuspect: 1, FailedAtProof: 1}
	return r
}

func scenario(runs ...Run) Scenario {
	return Scenario{
		Name: "uniform", Title: "5 × 2 lattice", Cap: 10 * time.Minute,
		Contenders: []string{FluxAlone, TierScript, Standup, Bound},
		Ratios: []Ratio{
			{Num: Standup, Den: Bound},
			{Num: FluxAlone, Den: Standup, Op: "≥", Target: 10},
			{Num: TierScript, Den: Standup, Op: "≥", Target: 1},
		},
		StandupMax: time.Minute,
		Runs:       runs,
	}
}

func TestScenarioMarkdown(t *testing.T) {
	tests := []struct {
		name string
		s    Scenario
	}{
		{name: "three-runs", s: scenario(run(90, 3, 2, 1, true, 10, 40), run(120, 2.4, 2.4, 1.2, true, 10, 44), run(95, 4, 2, 1, true, 10, 42))},
		{name: "flux-capped", s: scenario(run(600, 3, 2, 1, false, 25, 40))},
		{name: "diagnosed", s: scenario(diagnosed(run(300, 300, 9, 6, false, 12, 60), 3.1, 6.4), run(300, 300, 10, 6, false, 12, 61), diagnosed(run(300, 300, 8, 6, false, 12, 59), 2.9, 6.0))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.s.Markdown()
			path := filepath.Join("testdata", "report-"+tt.name+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Fatalf("Markdown differs from %s (run with -update if intended):\n%s", path, got)
			}
		})
	}
}

func TestScenarioGoalsAndMetrics(t *testing.T) {
	tests := []struct {
		name    string
		s       Scenario
		met     []bool // per ratio with a goal, in order
		metrics map[string]float64
	}{
		{
			name: "goals met",
			s:    scenario(run(90, 3, 2, 1, true, 10, 40), run(120, 2.4, 2.4, 1.2, true, 10, 44), run(95, 4, 2, 1, true, 10, 42)),
			met:  []bool{true, true},
			metrics: map[string]float64{"flux_s": 95, "script_s": 3, "standup_s": 2, "bound_s": 1,
				"standup/bound": 2, "flux/standup": 47.5, "script/standup": 1.5, "writes/ks": 1, "max_writes/ks": 1, "max_patches/ks": 1, "extra_reads": 1, "rss_MiB": 44},
		},
		{
			name: "script faster than standup, too many writes",
			s:    scenario(run(15, 1, 2, 1, false, 25, 40)),
			met:  []bool{false, false},
			metrics: map[string]float64{"flux_s": 15, "script_s": 1, "standup_s": 2, "bound_s": 1,
				"standup/bound": 2, "flux/standup": 7.5, "script/standup": 0.5, "writes/ks": 2.5, "max_writes/ks": 16, "max_patches/ks": 2, "extra_reads": 1, "rss_MiB": 40},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var met []bool
			for _, r := range tt.s.Ratios {
				if m, ok := tt.s.Met(r); ok {
					met = append(met, m)
				}
			}
			if len(met) != len(tt.met) || met[0] != tt.met[0] || met[1] != tt.met[1] {
				t.Errorf("goals met = %v, want %v", met, tt.met)
			}
			if got := tt.s.Metrics(); !maps.Equal(got, tt.metrics) {
				t.Errorf("Metrics() = %v, want %v", got, tt.metrics)
			}
		})
	}
}

func TestRatioSkipsUnconvergedDenominator(t *testing.T) {
	r := run(90, 3, 2, 1, true, 10, 40)
	r.Results[Standup] = Measurement{Elapsed: secs(300)}
	xs, _ := scenario(r).RatioValues(Ratio{Num: FluxAlone, Den: Standup})
	if len(xs) != 0 {
		t.Fatalf("ratio over a standup run that did not converge: %v", xs)
	}
}

func TestScenarioMissed(t *testing.T) {
	// clean drops the fixture's second list: no reads beyond the informers'.
	clean := func(r Run) Run {
		r.Standup.Requests[kube.Request{Verb: "list", Resource: "kustomizations.kustomize.toolkit.fluxcd.io"}] = 1
		return r
	}
	slow := run(90, 3, 70, 1, true, 10, 40)
	tests := []struct {
		name string
		s    Scenario
		want []string
	}{
		{name: "goals met", s: scenario(clean(run(90, 3, 2, 1, true, 10, 40)), clean(run(120, 2.4, 2.4, 1.2, true, 10, 44)))},
		{name: "every goal missed", s: scenario(run(15, 1, 2, 1, false, 25, 40), slow), want: []string{
			"flux alone / standup = 4.39, want ≥ 10",
			"tier script / standup = 0.27, want ≥ 1",
			"standup's slowest run took 70.0 s, want ≤ 1m0s",
			"reads beyond one list and one watch per kind, want 0",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.s.Missed()
			if len(got) != len(tt.want) {
				t.Fatalf("Missed() = %q, want %d entries like %q", got, len(tt.want), tt.want)
			}
			for i := range got {
				if !strings.Contains(got[i], tt.want[i]) {
					t.Errorf("Missed()[%d] = %q, want it to contain %q", i, got[i], tt.want[i])
				}
			}
		})
	}
	many := scenario(clean(run(90, 3, 2, 1, true, 10, 40)))
	many.Runs[0].Standup.PatchesPerNode = map[string]int{"ns/a": 3}
	if got := many.Missed(); len(got) != 1 || got[0] != "3 patches to one Kustomization, want ≤ 2" {
		t.Errorf("Missed() with 3 patches = %q", got)
	}
	heavy := scenario(clean(run(90, 3, 2, 1, true, 10, 40)), clean(run(90, 3, 2, 1, true, 10, 150)))
	heavy.MaxRSSMiB = 150
	if got := heavy.Missed(); len(got) != 1 || got[0] != "standup's peak RSS 150.0 MiB, want < 150 MiB" {
		t.Errorf("Missed() with one run at the RSS goal = %q", got)
	}
	heavy.Runs = heavy.Runs[:1]
	if got := heavy.Missed(); len(got) != 0 {
		t.Errorf("Missed() with 40 MiB against a 150 MiB goal = %q", got)
	}
}

// scaleRun is a run of the scale scenario: both bounds, the larger one
// recorded as the benchmark records it, and Flux tuned.
func scaleRun(tuned, standup, cp, throughput float64) Run {
	r := run(400, 200, standup, cp, true, 300, 90)
	r.Results[FluxTuned] = Measurement{Elapsed: secs(tuned), Converged: true, Ready: 300, Total: 300}
	r.Results[Throughput] = Measurement{Elapsed: secs(throughput), Converged: true}
	r.Results[LargerBound] = Measurement{Elapsed: secs(max(cp, throughput)), Converged: true}
	r.Standup.Kustomizations = 300
	r.Standup.Limit = &wait.Limit{Kind: wait.LimitWorkers, Reconciles: 300, CriticalPath: wait.Duration(secs(cp)), Work: wait.Duration(secs(4 * throughput)),
		Workers: 4, ThroughputBound: wait.Duration(secs(throughput)), Waited: 250, MeanWait: wait.Duration(secs(2)), MaxWait: wait.Duration(secs(9)),
		Concurrent: 8, Saving: wait.Duration(secs(throughput - max(cp, throughput/2)))}
	return r
}

func scaleScenario(runs ...Run) Scenario {
	return Scenario{
		Name: "scale", Title: "15 × 20", Cap: 10 * time.Minute,
		Contenders: []string{FluxAlone, FluxTuned, TierScript, Standup, Bound, Throughput, LargerBound},
		Ratios:     []Ratio{{Num: Standup, Den: LargerBound, Op: "≤", Target: 1.05}, {Num: FluxTuned, Den: Standup, Op: "≥", Target: 1.4}},
		MaxRSSMiB:  150, Runs: runs,
	}
}

// TestScaleScenarioJudgesTheLargerBound: standup is held to the larger of
// the two bounds, whichever it is in each run, and the bounds are rows
// that never "converge".
func TestScaleScenarioJudgesTheLargerBound(t *testing.T) {
	s := scaleScenario(scaleRun(90, 52, 40, 50), scaleRun(95, 61, 60, 45), scaleRun(80, 53, 30, 51))
	xs, _ := s.RatioValues(s.Ratios[0])
	want := []float64{52.0 / 50, 61.0 / 60, 53.0 / 51}
	for i := range want {
		if diff := xs[i] - want[i]; diff > 1e-9 || diff < -1e-9 {
			t.Fatalf("standup / larger bound = %v, want %v", xs, want)
		}
	}
	if met, ok := s.Met(s.Ratios[0]); !ok || !met {
		t.Fatalf("standup within 4%% of the larger bound in every run: met = %v, %v", met, ok)
	}
	md := s.Markdown()
	for _, row := range []string{"| throughput bound | 50.0 (45.0–51.0) | – |", "| larger bound | 51.0 (50.0–60.0) | – |", "| flux tuned | 90.0 (80.0–95.0) | 3/3 |", "goal < 150 MiB: yes",
		"named as the limit: worker-pool (critical path 30.0 s, 300 reconciles, 204.0 s of work on 4 workers seen: 51.0 s; 250 waited more than 1 s for a worker, 2.0 s on average, 9.0 s at most; --concurrent 8 would save about 21.0 s)."} {
		if !strings.Contains(md, row) {
			t.Errorf("Markdown lacks %q:\n%s", row, md)
		}
	}
	slow := scaleScenario(scaleRun(90, 60, 40, 50))
	slow.Runs[0].Standup.Requests[kube.Request{Verb: "list", Resource: "kustomizations.kustomize.toolkit.fluxcd.io"}] = 1
	if got := slow.Missed(); len(got) != 1 || got[0] != "standup / larger bound = 1.20, want ≤ 1.05" {
		t.Errorf("Missed() of a standup 20%% over the pool's bound, Flux tuned 1.5 times it = %q", got)
	}
}

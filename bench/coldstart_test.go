package bench

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubestandup/standup/internal/benchgraph"
	"github.com/kubestandup/standup/internal/testenv"
	"github.com/kubestandup/standup/pkg/render"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// BenchmarkColdstart is issues 7 and 18's side-by-side cold start: for
// each scenario, BENCH_RUNS runs, and in each run every contender from the
// same cold state on the real kustomize-controller with its default flags
// (Flux tuned: --requeue-dependency=5s, in a world of its own). It prints
// one Markdown table per scenario (and writes it to BENCH_OUT) and reports
// the medians as metrics. Run it with scripts/bench-coldstart.sh.
func BenchmarkColdstart(b *testing.B) {
	env := newBenchEnv(b)
	b.Run("uniform", func(b *testing.B) {
		s := Scenario{
			Name: env.name("uniform"), Title: "5 × 2 lattice, each node on both nodes of the tier above, no durations (benchgraph.Uniform)",
			Cap: env.graphCap, Contenders: []string{FluxAlone, FluxTuned, TierScript, Standup, Bound},
			Ratios: []Ratio{{Num: Standup, Den: Bound}, {Num: FluxAlone, Den: Standup, Op: "≥", Target: 10},
				{Num: FluxTuned, Den: Standup, Op: "≥", Target: 5}, {Num: TierScript, Den: Standup, Op: "≥", Target: 1}},
		}
		report(b, env, graphScenario(b, env, s, benchgraph.Uniform()))
	})
	b.Run("uneven", func(b *testing.B) {
		g := benchgraph.Uneven(1)
		s := Scenario{
			Name: env.name("uneven"), Title: fmt.Sprintf("6 × 3, seeded durations of 1–10 s, the slowest path crosses tiers (benchgraph.Uneven(1), spec seed %d)", g.Spec.Seed),
			Cap: env.graphCap, Contenders: []string{FluxAlone, FluxTuned, TierScript, Standup, Bound},
			Ratios: []Ratio{{Num: Standup, Den: Bound, Op: "≤", Target: 1.15}, {Num: FluxAlone, Den: Standup},
				{Num: FluxTuned, Den: Standup, Op: "≥", Target: 1.2}, {Num: TierScript, Den: Standup, Op: "≥", Target: 1.3}},
		}
		report(b, env, graphScenario(b, env, s, g))
	})
	b.Run("deadlock", func(b *testing.B) {
		s := Scenario{
			Name: env.name("deadlock"), Title: "examples/homelab-deadlock with the simulated cdi-operator, a fresh world per contender",
			Cap: env.deadlockCap, Contenders: []string{FluxAlone, FluxTuned, TierScript, ScriptCRDs, Standup, Bound}, StandupMax: time.Minute,
			Ratios: []Ratio{{Num: Standup, Den: Bound, Op: "≤", Target: 1.5}, {Num: FluxAlone, Den: Standup}, {Num: FluxTuned, Den: Standup},
				{Num: TierScript, Den: Standup}, {Num: ScriptCRDs, Den: Standup}},
		}
		report(b, env, deadlockScenario(b, env, s))
	})
	b.Run("scale", func(b *testing.B) {
		g := env.scaleGraph()
		s := Scenario{
			Name: env.name("scale"), Title: fmt.Sprintf("%d × %d, fan-in %d, %d slow nodes of %d–%d s, one ConfigMap each otherwise, standup given the checkout (benchgraph.Scale(1), spec seed %d)",
				g.Spec.Depth, g.Spec.Width, g.Spec.FanIn, g.Spec.Slow, g.Spec.MinSeconds, g.Spec.MaxSeconds, g.Spec.Seed),
			Cap: env.scaleCap, Contenders: []string{FluxAlone, FluxTuned, TierScript, Standup, Bound, Throughput, LargerBound},
			Ratios: []Ratio{{Num: Standup, Den: LargerBound, Op: "≤", Target: 1.05}, {Num: Standup, Den: Bound}, {Num: Standup, Den: Throughput},
				{Num: FluxAlone, Den: Standup, Op: "≥", Target: 1.8}, {Num: FluxTuned, Den: Standup, Op: "≥", Target: 1.4},
				{Num: TierScript, Den: Standup}},
			MaxRSSMiB: 150, Checkout: true,
		}
		report(b, env, graphScenario(b, env, s, g))
	})
}

// tunedArgs is Flux tuned: the flag Flux's maintainers point to for slow
// dependency chains (fluxcd/flux2#4808).
var tunedArgs = []string{"--requeue-dependency=5s"}

// controllerWorkers is kustomize-controller's default --concurrent, which
// every world but Flux tuned's runs with, and the throughput bound divides by.
const controllerWorkers = 4

// graphScenario runs a generated graph. Each run has one world on the
// default flags, where Flux alone, the tier script and standup each get a
// fresh namespace (nothing cluster-scoped leaks between them: the Delay CRD
// is shared and never changes), in an order that rotates from run to run;
// then a world of its own for Flux tuned. A contender's Kustomizations are
// suspended once it is measured, so that their next interval never runs
// during another contender's turn.
func graphScenario(b *testing.B, env benchEnv, s Scenario, g benchgraph.Graph) Scenario {
	contenders := []string{FluxAlone, TierScript, Standup}
	for run := range env.runs {
		res := Run{Results: map[string]Measurement{}}
		w := graphWorld(b, env)
		for i := range contenders {
			c := contenders[(i+run)%len(contenders)]
			if slices.Contains(s.Contenders, c) && env.takes(c) {
				graphTurn(b, env, s, run, c, w, g, &res)
			}
		}
		w.Stop()
		if slices.Contains(s.Contenders, FluxTuned) && env.takes(FluxTuned) {
			w := graphWorld(b, env, tunedArgs...)
			graphTurn(b, env, s, run, FluxTuned, w, g, &res)
			w.Stop()
		}
		s.Runs = append(s.Runs, res)
	}
	return s
}

// graphTurn runs one contender on its own copy of g in world w and records
// it (and, for standup, the bounds of its run) into res.
func graphTurn(b *testing.B, env benchEnv, s Scenario, run int, c string, w *testenv.World, g benchgraph.Graph, res *Run) {
	b.Helper()
	ctx := context.Background()
	scenario := s.Name
	g.Namespace = fmt.Sprintf("%s-%d-%s", scenario, run, metricKeys[c])
	dir := b.TempDir()
	if err := seedGraph(ctx, w, g, dir); err != nil {
		b.Fatal(err)
	}
	t := target{w: w, ns: g.Namespace, want: len(g.Nodes), cap: env.capOf(scenario)}
	if s.Checkout && c == Standup {
		// Written after seedGraph published the tree: the artifact every
		// contender's controller unpacks stays the same.
		if err := g.WriteCheckout(dir, benchSource); err != nil {
			b.Fatal(err)
		}
		t.checkout, t.checkoutPath = dir, filepath.Join(dir, g.CheckoutPath())
	}
	out, err := runGraphContender(ctx, b, env, t, c)
	if err != nil {
		b.Fatalf("%s run %d, %s: %v", scenario, run, c, err)
	}
	record(b, env, scenario, run, c, out)
	res.Results[c] = out.Measurement
	if c == Standup {
		boundOf(b, res, g, w, g.Namespace, out, nil)
	}
	keepControllerLog(b, env, scenario, run, c, w)
	if err := park(ctx, w, g.Namespace); err != nil {
		b.Fatal(err)
	}
}

func runGraphContender(ctx context.Context, b *testing.B, env benchEnv, t target, c string) (outcome, error) {
	switch c {
	case FluxAlone, FluxTuned:
		return fluxAlone(ctx, t)
	case TierScript:
		order := filepath.Join(b.TempDir(), "TIER_ORDER")
		if err := tierOrder(ctx, env, t.w, order, "-n", t.ns); err != nil {
			return outcome{}, err
		}
		return tierScript(ctx, env, t, order)
	default:
		if t.checkout != "" {
			return standupResume(ctx, env, t, "--path", t.checkoutPath, "--repo-root", t.checkout)
		}
		return standupResume(ctx, env, t)
	}
}

// boundOf records the bounds of the standup run from the reconcile
// durations the controller logged for the Kustomizations of ns ("" keeps
// the namespace/name keys as they are): g's longest path weighted by them
// (the node standup diagnosed deadlocked adding its first, failed,
// reconcile), their sum over the controller's workers, and the larger of
// the two. An operator that creates CRDs at runtime (op, when not nil) lies
// on the critical path of the Kustomizations that wait on it, weighed by
// the latency it had in that run; it uses no controller worker.
func boundOf(b *testing.B, res *Run, g benchgraph.Graph, w *testenv.World, ns string, out outcome, op *operatorRun) {
	b.Helper()
	if out.usage != nil {
		res.Standup = *out.usage
	}
	durations, err := ReconcileDurations(w.Controller.Log())
	if err != nil {
		b.Fatal(err)
	}
	if ns != "" {
		durations = InNamespace(durations, ns)
	}
	res.Durations = maps.Clone(durations)
	if op != nil {
		res.OperatorLatency = op.latency
	}
	if out.usage != nil && out.usage.Diagnosis != nil {
		// A deadlock is revealed by one failed reconcile of the stuck node,
		// which no tool can avoid: the bound counts it on that node.
		failed, err := FailedDurations(w.Controller.Log())
		if err != nil {
			b.Fatal(err)
		}
		node := out.usage.Diagnosis.Node
		durations[node] += failed[node]
		b.Logf("bound: %s weighs its revealing failed reconcile (%s) and its first successful one", node, failed[node])
	}
	for _, n := range g.Nodes {
		if _, ok := durations[n.Name]; !ok {
			b.Logf("bound: no successful reconcile of %s in the controller log; it weighs zero", n.Name)
		}
	}
	throughput := g.ThroughputBound(durations, controllerWorkers)
	paths := g
	if op != nil {
		var err error
		if paths, err = op.origin.On(g); err != nil {
			b.Fatal(err)
		}
		durations[op.origin.Name] = op.latency
		b.Logf("bound: %s took %s from seeing its trigger (applied by %s) to creating its CRDs, which %v wait on", op.origin.Name, op.latency, op.origin.Trigger, op.origin.Waiting)
	}
	bound, path := paths.CriticalPath(durations)
	res.Results[Bound] = Measurement{Elapsed: bound, Converged: true}
	res.Results[Throughput] = Measurement{Elapsed: throughput, Converged: true}
	res.Results[LargerBound] = Measurement{Elapsed: max(bound, throughput), Converged: true}
	res.BoundPath = path
}

// deadlockScenario runs the seed's deadlock, a fresh world per contender:
// the StorageProfile CRD is cluster-scoped, so nothing may be shared. The
// three contenders expected to hit the cap (Flux alone, Flux tuned, the
// bare tier script) run side by side to save the wait: they idle on
// retries, so they hardly load the machine, and all three are structurally
// stuck either way.
func deadlockScenario(b *testing.B, env benchEnv, s Scenario) Scenario {
	ctx := context.Background()
	res, err := render.Load(ctx, render.Options{Path: deadlockPath})
	if err != nil {
		b.Fatal(err)
	}
	d := deadlockSetup{order: filepath.Join(b.TempDir(), "TIER_ORDER")}
	if d.g, err = GraphOf(res.Objects); err != nil {
		b.Fatal(err)
	}
	cdi := func(kind string) schema.GroupKind { return schema.GroupKind{Group: "cdi.kubevirt.io", Kind: kind} }
	if d.origin, err = RuntimeOriginOf(res, "cdi-operator", cdi("CDI"), []schema.GroupKind{cdi("StorageProfile"), cdi("DataVolume")}); err != nil {
		b.Fatal(err)
	}
	if d.bundle, err = filepath.Abs(deadlockBundle); err != nil {
		b.Fatal(err)
	}
	for run := range env.deadlockRuns {
		r := Run{Results: map[string]Measurement{}}
		d.capped(b, env, s.Name, run, &r)
		d.repaired(b, env, s.Name, run, &r)
		s.Runs = append(s.Runs, r)
	}
	return s
}

// deadlockSetup is what every deadlock run shares: the repository's graph
// (for the bound), its TIER_ORDER file and the CRD bundle.
type deadlockSetup struct {
	g             benchgraph.Graph
	origin        RuntimeOrigin
	order, bundle string
}

// operatorRun is a runtime operator of a run, with the latency it had.
type operatorRun struct {
	origin  RuntimeOrigin
	latency time.Duration
}

func (d deadlockSetup) target(w *testenv.World, env benchEnv) target {
	return target{w: w, want: len(d.g.Nodes), cap: env.deadlockCap}
}

// capped runs Flux alone, Flux tuned and the bare tier script side by
// side, each in its own world.
func (d deadlockSetup) capped(b *testing.B, env benchEnv, scenario string, run int, r *Run) {
	ctx := context.Background()
	wf, _ := deadlockWorld(b, env)
	wt, _ := deadlockWorld(b, env, tunedArgs...)
	ws, _ := deadlockWorld(b, env)
	defer wf.Stop()
	defer wt.Stop()
	defer ws.Stop()
	if _, err := os.Stat(d.order); err != nil {
		// Offline, from the checkout: on a cold cluster only the root exists.
		if err := tierOrder(ctx, env, ws, d.order, "--path", deadlockPath); err != nil {
			b.Fatal(err)
		}
	}
	all := runAll(
		func() (outcome, error) { return fluxAlone(ctx, d.target(wf, env)) },
		func() (outcome, error) { return fluxAlone(ctx, d.target(wt, env)) },
		func() (outcome, error) { return tierScript(ctx, env, d.target(ws, env), d.order) })
	for i, c := range []string{FluxAlone, FluxTuned, TierScript} {
		if all[i].err != nil {
			b.Fatalf("deadlock run %d, %s: %v", run, c, all[i].err)
		}
		record(b, env, scenario, run, c, all[i].out)
		r.Results[c] = all[i].out.Measurement
	}
}

// repaired runs the tier script after the blanket CRD pre-apply (crds
// --all: every bundle CRD absent from the cluster, no diagnosis), then
// standup with the same bundle, each in a fresh world, and takes the bound
// from standup's run.
func (d deadlockSetup) repaired(b *testing.B, env benchEnv, scenario string, run int, r *Run) {
	ctx := context.Background()
	w, _ := deadlockWorld(b, env)
	out, err := tierScript(ctx, env, d.target(w, env), d.order, []string{"crds", "--all", "--crds", d.bundle})
	if err != nil {
		b.Fatalf("deadlock run %d, %s: %v", run, ScriptCRDs, err)
	}
	record(b, env, scenario, run, ScriptCRDs, out)
	r.Results[ScriptCRDs] = out.Measurement
	w.Stop()

	w, op := deadlockWorld(b, env)
	defer w.Stop()
	out, err = standupResume(ctx, env, d.target(w, env), "--crds", d.bundle)
	if err != nil {
		b.Fatalf("deadlock run %d, standup: %v", run, err)
	}
	record(b, env, scenario, run, Standup, out)
	r.Results[Standup] = out.Measurement
	boundOf(b, r, d.g, w, "", out, &operatorRun{origin: d.origin, latency: op.Latency()})
	keepControllerLog(b, env, scenario, run, Standup, w)
}

// deadlockWorld starts a world on kustomize-controller with args added to
// its flags and seeds the deadlock into it.
func deadlockWorld(b *testing.B, env benchEnv, args ...string) (*testenv.World, *testenv.RuntimeCRDOperator) {
	b.Helper()
	w := benchWorld(b, env.worldOptions(args...))
	op, err := seedDeadlock(context.Background(), w)
	if err != nil {
		b.Fatal(err)
	}
	return w, op
}

type contenderResult struct {
	out outcome
	err error
}

// runAll runs contenders at once and returns their results in order.
func runAll(contenders ...func() (outcome, error)) []contenderResult {
	res := make([]contenderResult, len(contenders))
	var wg sync.WaitGroup
	for i, f := range contenders {
		wg.Go(func() { res[i].out, res[i].err = f() })
	}
	wg.Wait()
	return res
}

// record logs one measurement, appends it to BENCH_OUT/raw.txt beside the
// contender's stdout and stderr (standup's NDJSON events among them), and
// shows the tail of a process contender's stderr when it did not converge.
func record(b *testing.B, env benchEnv, scenario string, run int, c string, out outcome) {
	b.Helper()
	line := fmt.Sprintf("%s\trun %d\t%-26s\t%7.2fs\tconverged=%v\tready %d/%d", scenario, run, c, out.Elapsed.Seconds(), out.Converged, out.Ready, out.Total)
	if out.usage != nil {
		line += fmt.Sprintf("\trss %.1f MiB\tmutations %d\trequests %s", float64(out.usage.MaxRSS)/(1<<20), out.usage.Mutations, out.usage.Requests.Detail())

		if d := out.usage.Diagnosis; d != nil {
			line += fmt.Sprintf("\tdiagnosis %s suspected %.1fs (%d failed reconciles) proven %.1fs (%d) pre-applied %.1fs", d.Node, d.Suspected.Seconds(), d.FailedAtSuspect, d.Proven.Seconds(), d.FailedAtProof, d.Repaired.Seconds())
		}
	}
	b.Log(line)
	if !out.Converged && out.stderr != "" {
		b.Logf("%s stderr (last lines):\n%s", c, lastLines(out.stderr, 8))
	}
	if env.out == "" {
		return
	}
	for ext, text := range map[string]string{"stderr": out.stderr, "stdout": out.stdout} {
		if text == "" {
			continue
		}
		name := fmt.Sprintf("%s-%d-%s.%s", scenario, run, metricKeys[c], ext)
		if err := os.WriteFile(filepath.Join(env.out, name), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	f, err := os.OpenFile(filepath.Join(env.out, "raw.txt"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	fmt.Fprintln(f, line)
}

// keepControllerLog writes the world's kustomize-controller log, as it
// stands after contender c's turn, beside the contender's output in
// BENCH_OUT: the reconcile durations the bounds are computed from.
func keepControllerLog(b *testing.B, env benchEnv, scenario string, run int, c string, w *testenv.World) {
	b.Helper()
	if env.out == "" {
		return
	}
	name := fmt.Sprintf("%s-%d-%s.controller.log", scenario, run, metricKeys[c])
	if err := os.WriteFile(filepath.Join(env.out, name), []byte(w.Controller.Log()), 0o644); err != nil {
		b.Fatal(err)
	}
}

// report prints the scenario's tables, writes them to BENCH_OUT, and
// reports its medians as benchmark metrics.
func report(b *testing.B, env benchEnv, s Scenario) {
	b.Helper()
	md := s.Markdown()
	fmt.Println(md)
	if env.out != "" {
		if err := os.WriteFile(filepath.Join(env.out, s.Name+".md"), []byte(md), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for unit, v := range s.Metrics() {
		b.ReportMetric(v, unit)
	}
	// The tables are written either way; a missed goal fails the run, so
	// scripts/bench-coldstart.sh exits non-zero.
	for _, miss := range s.Missed() {
		b.Errorf("%s: goal missed: %s", s.Name, miss)
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

package bench

import (
	"context"
	"fmt"
	"testing"

	"github.com/kubestandup/standup/internal/benchgraph"
)

// BenchmarkChain5 is issue 4's benchmark: a chain of five Kustomizations
// without durations, all created suspended, on kustomize-controller with its
// default flags (--requeue-dependency=30s). Flux alone resumes all five at
// once; standup walks a fresh copy in another namespace of the same world.
// It reports both wall times and their ratio.
func BenchmarkChain5(b *testing.B) {
	env := newBenchEnv(b)
	ctx := context.Background()
	w := graphWorld(b, env)
	g := benchgraph.Generate(benchgraph.Spec{Depth: 5, Width: 1, FanIn: 1, Prefix: "chain"})
	times := map[string]float64{}
	for _, c := range []string{FluxAlone, Standup} {
		gc := g
		gc.Namespace = "chain-" + metricKeys[c]
		if err := seedGraph(ctx, w, gc, b.TempDir()); err != nil {
			b.Fatal(err)
		}
		t := target{w: w, ns: gc.Namespace, want: len(g.Nodes), cap: env.graphCap}
		out, err := runGraphContender(ctx, b, env, t, c)
		if err != nil {
			b.Fatalf("chain of 5, %s: %v", c, err)
		}
		record(b, env, "chain5", 0, c, out)
		if !out.Converged {
			b.Fatalf("chain of 5, %s: did not converge within %s (%d/%d Ready)", c, env.graphCap, out.Ready, out.Total)
		}
		times[c] = out.Elapsed.Seconds()
	}
	ratio := times[FluxAlone] / times[Standup]
	fmt.Printf("chain of 5: flux alone %.1f s, standup %.1f s, flux/standup %.1f\n", times[FluxAlone], times[Standup], ratio)
	b.ReportMetric(times[FluxAlone], "flux_s")
	b.ReportMetric(times[Standup], "standup_s")
	b.ReportMetric(ratio, "flux/standup")
}

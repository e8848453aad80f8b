package bench

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubestandup/standup/internal/testenv"
)

// hrChainLength is the length of BenchmarkHelmChain5's chain.
const hrChainLength = 5

// BenchmarkHelmChain5 is issue 19's benchmark: a chain of five HelmReleases
// (each dependsOn the one before, all of the test world's chart with no
// CRDs), created suspended, on the real helm-controller v1.5.5 with its
// default flags (--requeue-dependency=30s). Flux alone resumes all five at
// once, and helm-controller installs each one a dependency re-check after
// the one before; standup walks a fresh copy in another namespace of the
// same world. It reports both wall times and their ratio, which must be at
// least 10.
func BenchmarkHelmChain5(b *testing.B) {
	env := newBenchEnv(b)
	ctx := context.Background()
	w := benchWorld(b, testenv.Options{Helm: true})
	if _, err := w.PublishChart("../internal/testenv/testdata/charts/plain"); err != nil {
		b.Fatal(err)
	}
	times := map[string]float64{}
	for _, c := range []string{FluxAlone, Standup} {
		ns := "hrchain-" + metricKeys[c]
		if err := seedHelmChain(ctx, w, ns); err != nil {
			b.Fatal(err)
		}
		t := target{w: w, ns: ns, want: hrChainLength, cap: env.graphCap}
		var out outcome
		var err error
		if c == FluxAlone {
			out, err = helmFluxAlone(ctx, t)
		} else {
			out, err = helmStandup(ctx, env, t)
		}
		if err != nil {
			b.Fatalf("HelmRelease chain of 5, %s: %v", c, err)
		}
		record(b, env, "helmchain5", 0, c, out)
		if !out.Converged {
			b.Fatalf("HelmRelease chain of 5, %s: did not converge within %s (%d/%d Ready)", c, env.graphCap, out.Ready, out.Total)
		}
		times[c] = out.Elapsed.Seconds()
	}
	ratio := times[FluxAlone] / times[Standup]
	met := "yes"
	if ratio < helmChainGoal {
		met = "no"
	}
	fmt.Printf("HelmRelease chain of 5: flux alone %.1f s, standup %.1f s, flux/standup %.1f (goal ≥ %d: %s)\n", times[FluxAlone], times[Standup], ratio, helmChainGoal, met)
	b.ReportMetric(times[FluxAlone], "flux_s")
	b.ReportMetric(times[Standup], "standup_s")
	b.ReportMetric(ratio, "flux/standup")
	if ratio < helmChainGoal {
		b.Errorf("flux alone / standup = %.1f, want at least %d", ratio, helmChainGoal)
	}
}

// helmChainGoal is issue 19's goal for the chain of HelmReleases: Flux alone
// takes at least this many times as long as standup.
const helmChainGoal = 10

// seedHelmChain creates the chain hr-1 <- hr-2 <- ... in ns, suspended,
// and waits until helm-controller has taken each in (its finalizer), so
// that no start-up reconcile is queued when the clock starts.
func seedHelmChain(ctx context.Context, w *testenv.World, ns string) error {
	if err := w.CreateNamespace(ctx, ns); err != nil {
		return err
	}
	for i := 1; i <= hrChainLength; i++ {
		hr := testenv.HR{Namespace: ns, Name: fmt.Sprintf("hr-%d", i), Chart: "plain", Suspend: true}
		if i > 1 {
			hr.DependsOn = []meta.NamespacedObjectReference{testenv.Dep("", fmt.Sprintf("hr-%d", i-1))}
		}
		if err := w.Client.Create(ctx, hr.HelmRelease()); err != nil {
			return fmt.Errorf("HelmRelease/%s/%s create failed: %w", ns, hr.Name, err)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for {
		list, err := listHRs(ctx, w, ns)
		if err != nil {
			return err
		}
		taken := 0
		for _, hr := range list {
			if slices.Contains(hr.GetFinalizers(), "finalizers.fluxcd.io") {
				taken++
			}
		}
		if taken == hrChainLength {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("HelmReleases in %s: %d of %d taken in by helm-controller: %w", ns, taken, hrChainLength, ctx.Err())
		case <-time.After(poll):
		}
	}
}

func listHRs(ctx context.Context, w *testenv.World, ns string) ([]unstructured.Unstructured, error) {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(testenv.HelmReleaseGVK.GroupVersion().WithKind("HelmReleaseList"))
	if err := w.Client.List(ctx, list, client.InNamespace(ns)); err != nil {
		return nil, fmt.Errorf("HelmReleases in %s: %w", ns, err)
	}
	return list.Items, nil
}

// helmReadiness counts the HelmReleases in ns and those Ready at their
// current generation.
func helmReadiness(ctx context.Context, w *testenv.World, ns string) (ready, total int, err error) {
	list, err := listHRs(ctx, w, ns)
	if err != nil {
		return 0, 0, err
	}
	for _, hr := range list {
		observed, _, _ := unstructured.NestedInt64(hr.Object, "status", "observedGeneration")
		conds, _, _ := unstructured.NestedSlice(hr.Object, "status", "conditions")
		for _, c := range conds {
			if m, _ := c.(map[string]any); m["type"] == meta.ReadyCondition && m["status"] == "True" && observed == hr.GetGeneration() {
				ready++
			}
		}
	}
	return ready, len(list), nil
}

// helmFluxAlone resumes every HelmRelease of the target at once, as
// `flux resume hr` on each would, and lets helm-controller do the rest.
func helmFluxAlone(ctx context.Context, t target) (outcome, error) {
	list, err := listHRs(ctx, t.w, t.ns)
	if err != nil {
		return outcome{}, err
	}
	start := time.Now()
	unsuspend := client.RawPatch(types.MergePatchType, []byte(`{"spec":{"suspend":false}}`))
	for i := range list {
		if err := t.w.Client.Patch(ctx, &list[i], unsuspend); err != nil {
			return outcome{}, fmt.Errorf("HelmRelease/%s/%s unsuspend failed: %w", t.ns, list[i].GetName(), err)
		}
	}
	for {
		ready, total, err := helmReadiness(ctx, t.w, t.ns)
		if err != nil {
			return outcome{}, err
		}
		elapsed := time.Since(start)
		if ready >= t.want || elapsed >= t.cap {
			m := Measurement{Elapsed: min(elapsed, t.cap), Converged: ready >= t.want, Ready: ready, Total: max(total, t.want)}
			return outcome{Measurement: m}, nil
		}
		time.Sleep(poll)
	}
}

// helmStandup runs `standup resume -n NS -o json` (both kinds, the
// default) and counts the HelmReleases Ready when it returns.
func helmStandup(ctx context.Context, env benchEnv, t target) (outcome, error) {
	ctx, cancel := context.WithTimeout(ctx, t.cap)
	defer cancel()
	p := process(ctx, t.w, env.standup, "--kubeconfig", t.w.Kubeconfig, "-o", "json", "--timeout", t.cap.String(), "-n", t.ns, "resume")
	start := time.Now()
	runErr := p.run()
	elapsed := time.Since(start)
	out := outcome{stdout: p.stdout.String(), stderr: p.stderr.String(), exitErr: runErr}
	ready, total, err := helmReadiness(context.WithoutCancel(ctx), t.w, t.ns)
	if err != nil {
		return out, err
	}
	out.Measurement = Measurement{Elapsed: min(elapsed, t.cap), Ready: ready, Total: max(total, t.want)}
	out.Converged = runErr == nil && ready >= t.want
	return out, nil
}

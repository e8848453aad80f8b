package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fluxcd/cli-utils/pkg/flowcontrol"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubestandup/standup/internal/benchgraph"
	"github.com/kubestandup/standup/internal/ciskip"
	"github.com/kubestandup/standup/internal/testenv"
)

const (
	deadlockBundle = deadlockRepo + "/bootstrap/crds"
	deadlockPath   = deadlockRepo + "/clusters/prod"
	benchSource    = "bench"
	poll           = 100 * time.Millisecond
	// benchInterval is every generated Kustomization's spec.interval: longer
	// than any run, so that kustomize-controller never runs a Ready one
	// again during a contender's turn. At scale on a loaded machine a turn
	// outlasts Flux's usual 10 m, and those re-runs would take workers from
	// whoever runs then.
	benchInterval = time.Hour
)

// benchEnv is what every benchmark run shares: the standup binary, the tier
// script, and the knobs read from the environment.
type benchEnv struct {
	standup, script string
	// runs is BENCH_RUNS (default 3); deadlockRuns is BENCH_DEADLOCK_RUNS
	// (default runs).
	runs, deadlockRuns int
	// graphCap (BENCH_CAP, default 10m), deadlockCap (BENCH_DEADLOCK_CAP,
	// default 5m) and scaleCap (BENCH_SCALE_CAP, default 30m) end a
	// contender that has not converged.
	graphCap, deadlockCap, scaleCap time.Duration
	// out is BENCH_OUT: a directory for the result tables, or empty.
	out string
	// scale is BENCH_SCALE, DEPTHxWIDTHxSLOW: the scale scenario at another
	// size, to try it out on a small graph; empty is the 15x20x10.
	scale string
	// controllerTmp is BENCH_CONTROLLER_TMPDIR: where kustomize-controller
	// untars artifacts (testenv.Options.ControllerTempDir), meant for a
	// tmpfs such as /dev/shm; the scenarios' names then end in "-tmpfs".
	// Empty is the world's directory, on disk.
	controllerTmp string
	// only is BENCH_CONTENDERS, metric keys separated by commas (flux,
	// tuned, script, standup): the generated scenarios run only those, for
	// development; empty runs every contender.
	only []string
}

// takes reports whether contender c takes its turns.
func (env benchEnv) takes(c string) bool {
	return len(env.only) == 0 || slices.Contains(env.only, metricKeys[c])
}

func newBenchEnv(b *testing.B) benchEnv {
	b.Helper()
	if _, err := testenv.AssetsDir(); err != nil && os.Getenv("CI") == "" {
		ciskip.Skipf(b, "test world unavailable (run scripts/testenv.sh): %v", err)
	}
	env := benchEnv{
		runs: envInt(b, "BENCH_RUNS", 3), graphCap: envDuration(b, "BENCH_CAP", 10*time.Minute),
		deadlockCap: envDuration(b, "BENCH_DEADLOCK_CAP", 5*time.Minute), scaleCap: envDuration(b, "BENCH_SCALE_CAP", 30*time.Minute),
		out:   os.Getenv("BENCH_OUT"),
		scale: os.Getenv("BENCH_SCALE"),
	}
	env.controllerTmp = os.Getenv("BENCH_CONTROLLER_TMPDIR")
	if v := os.Getenv("BENCH_CONTENDERS"); v != "" {
		env.only = strings.Split(v, ",")
	}
	if _, err := env.scaleSize(); err != nil {
		b.Fatal(err)
	}
	env.deadlockRuns = envInt(b, "BENCH_DEADLOCK_RUNS", env.runs)
	script, err := filepath.Abs("../scripts/tier-walk.sh")
	if err != nil {
		b.Fatal(err)
	}
	env.script = script
	env.standup = filepath.Join(b.TempDir(), "standup")
	build := exec.Command("go", "build", "-o", env.standup, "../cmd/standup")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build ./cmd/standup failed: %v\n%s", err, out)
	}
	if env.out != "" {
		if err := os.MkdirAll(env.out, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	return env
}

// name is a scenario's name in this environment: with "-tmpfs" when the
// controller untars artifacts in BENCH_CONTROLLER_TMPDIR.
func (env benchEnv) name(scenario string) string {
	if env.controllerTmp != "" {
		return scenario + "-tmpfs"
	}
	return scenario
}

// worldOptions are a world's options: kustomize-controller with args added
// to its default flags, untarring in BENCH_CONTROLLER_TMPDIR when set.
func (env benchEnv) worldOptions(args ...string) testenv.Options {
	return testenv.Options{ControllerArgs: args, ControllerTempDir: env.controllerTmp}
}

// benchWorld starts a world of opts whose API server serves API priority
// and fairness, as a cluster's does, and checks it with Flux's own check
// (fluxcd/pkg/runtime/client.GetConfigOrDie), on which Flux's controllers
// turn their client-side rate limit off. Without it a cold start of
// hundreds of Kustomizations is paced by kustomize-controller's
// --kube-api-qps, which no cluster since Kubernetes 1.20 does.
func benchWorld(b *testing.B, opts testenv.Options) *testenv.World {
	b.Helper()
	opts.PriorityAndFairness = true
	w := testenv.New(b, opts)
	on, err := flowcontrol.IsEnabled(context.Background(), w.Config)
	if err != nil || !on {
		b.Fatalf("bench world: API priority and fairness is not on (%v): kustomize-controller would pace itself at --kube-api-qps as no cluster does", err)
	}
	return w
}

// capOf is the cap of a generated scenario's contenders.
func (env benchEnv) capOf(scenario string) time.Duration {
	if strings.HasPrefix(scenario, "scale") {
		return env.scaleCap
	}
	return env.graphCap
}

// scaleSize reads BENCH_SCALE: depth, width and slow nodes, or nil.
func (env benchEnv) scaleSize() ([]int, error) {
	if env.scale == "" {
		return nil, nil
	}
	parts := strings.Split(env.scale, "x")
	var out []int
	for _, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			break
		}
		out = append(out, n)
	}
	if len(out) != 3 || len(parts) != 3 {
		return nil, fmt.Errorf("BENCH_SCALE=%q: want DEPTHxWIDTHxSLOW, e.g. 4x5x2", env.scale)
	}
	return out, nil
}

// scaleGraph is the scale scenario's graph: benchgraph.Scale(1), or its
// BENCH_SCALE size.
func (env benchEnv) scaleGraph() benchgraph.Graph {
	size, _ := env.scaleSize()
	if size == nil {
		return benchgraph.Scale(1)
	}
	return benchgraph.ScaleOf(size[0], size[1], size[2], 1)
}

func envInt(b *testing.B, name string, def int) int {
	b.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		b.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}

func envDuration(b *testing.B, name string, def time.Duration) time.Duration {
	b.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		b.Fatalf("%s=%q: want a positive duration", name, v)
	}
	return d
}

// graphWorld starts a world with kustomize-controller on its default flags
// plus args, and the Delay controller, for the generated scenarios.
func graphWorld(b *testing.B, env benchEnv, args ...string) *testenv.World {
	b.Helper()
	w := benchWorld(b, env.worldOptions(args...))
	if err := w.StartDelayController().Err(); err != nil {
		b.Fatal(err)
	}
	return w
}

// seedGraph puts g, in its namespace, into the cold state: its tree
// published as GitRepository <ns>/bench, every Kustomization created
// suspended and taken in by the controller.
func seedGraph(ctx context.Context, w *testenv.World, g benchgraph.Graph, dir string) error {
	if err := w.CreateNamespace(ctx, g.Namespace); err != nil {
		return err
	}
	if err := g.WriteTree(dir); err != nil {
		return err
	}
	if _, err := w.Artifacts.Publish(ctx, w.Client, g.Namespace, benchSource, dir); err != nil {
		return err
	}
	for _, k := range g.Kustomizations(benchSource, true) {
		k.Interval = benchInterval
		if err := w.Client.Create(ctx, k.Kustomization()); err != nil {
			return fmt.Errorf("Kustomization/%s/%s create failed: %w", k.Namespace, k.Name, err)
		}
	}
	return waitTakenIn(ctx, w, g.Namespace, len(g.Nodes))
}

// seedDeadlock puts the seed's broken layout into the cold state: the
// repository published as GitRepository flux-system/flux-system, the
// simulated cdi-operator running, and the root Kustomization (the only one
// that exists before it runs) created suspended.
func seedDeadlock(ctx context.Context, w *testenv.World) (*testenv.RuntimeCRDOperator, error) {
	if err := w.CreateNamespace(ctx, "flux-system"); err != nil {
		return nil, err
	}
	if _, err := w.Artifacts.Publish(ctx, w.Client, "flux-system", "flux-system", deadlockRepo); err != nil {
		return nil, err
	}
	var runtimeCRDs []*apiextensionsv1.CustomResourceDefinition
	for _, f := range []string{deadlockBundle + "/storageprofiles.cdi.kubevirt.io.yaml", "testdata/datavolumes.cdi.kubevirt.io.yaml"} {
		crd, err := testenv.LoadCRD(f)
		if err != nil {
			return nil, err
		}
		runtimeCRDs = append(runtimeCRDs, crd)
	}
	op := &testenv.RuntimeCRDOperator{
		Trigger: schema.GroupVersionResource{Group: "cdi.kubevirt.io", Version: "v1beta1", Resource: "cdis"},
		CRDs:    runtimeCRDs, Delay: 2 * time.Second,
	}
	w.StartOperator(op)
	root := testenv.KS{Namespace: "flux-system", Name: "flux-system", Path: "./clusters/prod", Source: "flux-system", Prune: true, Suspend: true}
	if err := w.Client.Create(ctx, root.Kustomization()); err != nil {
		return nil, fmt.Errorf("Kustomization/flux-system/flux-system create failed: %w", err)
	}
	return op, waitTakenIn(ctx, w, "flux-system", 1)
}

// waitTakenIn waits until the namespace holds want Kustomizations and the
// controller has added its finalizer to each, so that no start-up
// reconcile is still queued when the clock starts.
func waitTakenIn(ctx context.Context, w *testenv.World, ns string, want int) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	for {
		list := &kustomizev1.KustomizationList{}
		if err := w.Client.List(ctx, list, client.InNamespace(ns)); err != nil {
			return fmt.Errorf("Kustomizations in %s: %w", ns, err)
		}
		taken := 0
		for _, k := range list.Items {
			if slices.Contains(k.Finalizers, kustomizev1.KustomizationFinalizer) {
				taken++
			}
		}
		if taken == want && len(list.Items) == want {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("Kustomizations in %s: %d of %d taken in by the controller: %w", ns, taken, want, ctx.Err())
		case <-time.After(poll):
		}
	}
}

// park suspends every Kustomization of ns once its contender is measured,
// and waits until the controller has seen it (observedGeneration caught up):
// a Ready Kustomization is reconciled again at its interval (10 m), which
// must not happen on the controller during another contender's turn.
func park(ctx context.Context, w *testenv.World, ns string) error {
	list := &kustomizev1.KustomizationList{}
	if err := w.Client.List(ctx, list, client.InNamespace(ns)); err != nil {
		return fmt.Errorf("Kustomizations in %s: %w", ns, err)
	}
	suspend := client.RawPatch(types.MergePatchType, []byte(`{"spec":{"suspend":true}}`))
	for i := range list.Items {
		if err := w.Client.Patch(ctx, &list.Items[i], suspend); err != nil {
			return fmt.Errorf("Kustomization/%s/%s suspend failed: %w", ns, list.Items[i].Name, err)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for {
		if err := w.Client.List(ctx, list, client.InNamespace(ns)); err != nil {
			return fmt.Errorf("Kustomizations in %s: %w", ns, err)
		}
		behind := 0
		for _, k := range list.Items {
			if k.Status.ObservedGeneration != k.Generation && apimeta.IsStatusConditionTrue(k.Status.Conditions, meta.ReadyCondition) {
				behind++
			}
		}
		if behind == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("Kustomizations in %s: %d not yet seen suspended by the controller: %w", ns, behind, ctx.Err())
		case <-time.After(poll):
		}
	}
}

// readiness counts the Kustomizations in ns ("" for all) and those that
// have been Ready at their current generation (readyOnce).
func readiness(ctx context.Context, w *testenv.World, ns string) (ready, total int, err error) {
	list := &kustomizev1.KustomizationList{}
	if err := w.Client.List(ctx, list, client.InNamespace(ns)); err != nil {
		return 0, 0, fmt.Errorf("Kustomizations in %q: %w", ns, err)
	}
	for _, k := range list.Items {
		if readyOnce(k) {
			ready++
		}
	}
	return ready, len(list.Items), nil
}

// readyOnce reports whether k has been Ready at its current generation:
// Ready now, or running again since. kustomize-controller re-runs a Ready
// Kustomization at its interval (10 m) and shows Ready Unknown
// (Progressing) meanwhile; a walk longer than that, as at scale, would
// otherwise never find every node Ready at one instant. The controller
// writes observedGeneration only with Ready True (or a stalled failure,
// which is not Progressing).
func readyOnce(k kustomizev1.Kustomization) bool {
	if k.Status.ObservedGeneration != k.Generation {
		return false
	}
	ready := apimeta.FindStatusCondition(k.Status.Conditions, meta.ReadyCondition)
	switch {
	case ready == nil:
		return false
	case ready.Status == metav1.ConditionTrue:
		return true
	}
	return ready.Status == metav1.ConditionUnknown && ready.Reason == meta.ProgressingReason && k.Status.LastAppliedRevision != "" &&
		!apimeta.IsStatusConditionTrue(k.Status.Conditions, meta.StalledCondition)
}

// waitAllReady polls until want Kustomizations in ns are Ready, or until
// the cap after start; the harness polls, no contender does.
func waitAllReady(ctx context.Context, w *testenv.World, ns string, want int, start time.Time, limit time.Duration) (Measurement, error) {
	for {
		ready, total, err := readiness(ctx, w, ns)
		if err != nil {
			return Measurement{}, err
		}
		elapsed := time.Since(start)
		if ready >= want {
			return Measurement{Elapsed: elapsed, Converged: true, Ready: ready, Total: max(total, want)}, nil
		}
		if elapsed >= limit {
			return Measurement{Elapsed: limit, Ready: ready, Total: max(total, want)}, nil
		}
		select {
		case <-ctx.Done():
			return Measurement{}, ctx.Err()
		case <-time.After(poll):
		}
	}
}

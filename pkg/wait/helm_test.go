package wait

import (
	"strings"
	"testing"
	"time"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

var helmChart = tiers.ID{Kind: flux.HelmChartKind, Namespace: "apps", Name: "apps-web"}

func hrID(name string) tiers.ID {
	return tiers.ID{Kind: flux.KindHelmRelease, Namespace: "apps", Name: name}
}

// hr builds a HelmRelease helm-controller installed at chart version 1.0.0.
func hr(name string, mutate ...func(*flux.Object)) flux.Object {
	o := flux.Object{
		Node:                tiers.Node{ID: hrID(name)},
		SourceRef:           tiers.ID{Kind: "HelmRepository", Namespace: "apps", Name: "charts"},
		Chart:               helmChart,
		Ready:               &flux.Condition{Status: "True", Reason: "InstallSucceeded", Message: "Helm install succeeded"},
		LastAppliedRevision: "1.0.0",
		Generation:          1,
		ObservedGeneration:  1,
		Timeout:             time.Minute,
	}
	for _, m := range mutate {
		m(&o)
	}
	return o
}

func stalled(reason, message string) func(*flux.Object) {
	return func(o *flux.Object) { o.Stalled = &flux.Condition{Status: "True", Reason: reason, Message: message} }
}

// TestReadyForHelmReleaseDependents: helm-controller's checkDependencies
// has no revision gate, so two HelmReleases of one HelmRepository (or one
// chart) do not hold each other to a revision; Ready at the generation is
// all.
func TestReadyForHelmReleaseDependents(t *testing.T) {
	tests := []struct {
		name string
		dep  flux.Object
		want bool
	}{
		{name: "ready", dep: hr("db"), want: true},
		{name: "ready at another chart version than the dependent's", dep: hr("db", func(o *flux.Object) { o.LastAppliedRevision = "0.9.0" }), want: true},
		{name: "generation not observed", dep: hr("db", func(o *flux.Object) { o.Generation = 2 })},
		{name: "installing", dep: hr("db", ready("Unknown", "Progressing", "Running 'install' action with timeout of 5m0s"))},
		{name: "failed", dep: hr("db", ready("False", "InstallFailed", "Helm install failed"))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, why := ReadyForDependents(tt.dep, hr("web"), "")
			if got != tt.want {
				t.Errorf("ReadyForDependents() = %v (%s), want %v", got, why, tt.want)
			}
		})
	}
}

func TestHelmReleaseReady(t *testing.T) {
	tests := []struct {
		name     string
		obj      flux.Object
		revision string
		want     bool
	}{
		{name: "ready at the chart's revision", obj: hr("web"), revision: "1.0.0", want: true},
		{name: "the chart moved on", obj: hr("web"), revision: "1.1.0"},
		{name: "the chart has no artifact", obj: hr("web"), revision: ""},
		{name: "not ready", obj: hr("web", ready("False", "UpgradeFailed", "x")), revision: "1.0.0"},
		{name: "a chartRef is not compared", obj: hr("web", func(o *flux.Object) { o.Chart = tiers.ID{Kind: "OCIRepository", Namespace: "apps", Name: "web"} }), revision: "", want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := HelmReleaseReady(tt.obj, tt.revision); got != tt.want {
				t.Errorf("HelmReleaseReady() = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestClassifyHelmRelease sorts helm-controller v1.5's conditions.
func TestClassifyHelmRelease(t *testing.T) {
	tests := []struct {
		name string
		obj  flux.Object
		want State
	}{
		{name: "ready", obj: hr("web"), want: Ready},
		{name: "suspended", obj: hr("web", func(o *flux.Object) { o.Suspended = true }), want: Suspended},
		{name: "new", obj: hr("web", func(o *flux.Object) { o.Ready = nil }), want: Waiting},
		{name: "installing", obj: hr("web", ready("Unknown", "Progressing", "Running 'install' action")), want: Waiting},
		{name: "dependency not ready", obj: hr("web", ready("False", "DependencyNotReady", "dependency 'apps/db' is not ready")), want: Waiting},
		{name: "no chart artifact yet", obj: hr("web", ready("False", "SourceNotReady", "HelmChart 'apps/apps-web' is not ready: does not have an artifact")), want: Waiting},
		{name: "artifact not stored yet", obj: hr("web", ready("False", "ArtifactFailed", "Source not ready: artifact not found. Retrying in 30s")), want: Waiting},
		{name: "install failed, retries left", obj: hr("web", ready("False", "InstallFailed", "Helm install failed")), want: TransientFailure},
		{name: "retries exhausted", obj: hr("web", ready("False", "InstallFailed", "Helm install failed"), stalled("RetriesExceeded", "Failed to install after 1 attempt(s)")), want: HardFailure},
		{name: "a new attempt after a reset", obj: hr("web", ready("Unknown", "Progressing", "Running 'install' action"), stalled("RetriesExceeded", "Failed to install after 1 attempt(s)")), want: Waiting},
		{name: "cross-namespace reference refused", obj: hr("web", ready("False", "AccessDenied", "cross-namespace references are not allowed")), want: HardFailure},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Classify(tt.obj); got.State != tt.want {
				t.Errorf("Classify() = %+v, want %s", got, tt.want)
			}
		})
	}
}

// TestWalkerWalksAHelmReleaseChain: a HelmRelease is asked to reconcile as
// soon as the one it depends on is Ready (helm-controller would re-check
// only after --requeue-dependency, 30 s), one already Ready at its chart's
// revision is left alone, and the chart's CRDs in the inventory are waited
// on before dependents go.
func TestWalkerWalksAHelmReleaseChain(t *testing.T) {
	const gadgets = "gadgets.crds.standup.test"
	done := hr("done")
	db := hr("db", ready("False", "InstallFailed", "x"), func(o *flux.Object) {
		o.DependsOn = []tiers.Dependency{{ID: hrID("done")}}
	})
	web := hr("web", func(o *flux.Object) {
		o.Ready, o.ObservedGeneration, o.LastAppliedRevision = nil, 0, ""
		o.DependsOn = []tiers.Dependency{{ID: hrID("db")}}
	})
	w := NewWalker(Options{Kinds: []string{flux.KindKustomization, flux.KindHelmRelease}}, t0)
	w.ObserveSource(helmChart, "1.0.0")
	for _, o := range []flux.Object{done, db, web} {
		w.ObserveObject(o)
	}
	act, _, _ := w.Step(t0)
	if len(act) != 1 || act[0].Node != hrID("db") || act[0].Kind != ActionReconcile {
		t.Fatalf("actions = %+v, want one reconcile of db (done is Ready at its chart's revision)", act)
	}
	if p, _ := w.Phase(hrID("done")); p != PhaseReady {
		t.Fatalf("done is %s, want Ready untouched", p)
	}
	db.RequestedAt, db.LastHandledReconcileAt = act[0].Token, act[0].Token
	db.Ready = &flux.Condition{Status: "True", Reason: "InstallSucceeded", Message: "Helm install succeeded"}
	db.Inventory = []string{"_" + gadgets + "_apiextensions.k8s.io_CustomResourceDefinition"}
	w.ObserveObject(db)
	w.ObserveCRD(gadgets, spGK, false)
	act, _, _ = w.Step(t0.Add(time.Second))
	none(t, act)
	if p, _ := w.Phase(hrID("db")); p != PhaseCRDs {
		t.Fatalf("db is %s, want waiting for its chart's CRD", p)
	}
	w.ObserveCRD(gadgets, spGK, true)
	act, _, _ = w.Step(t0.Add(2 * time.Second))
	if len(act) != 1 || act[0].Node != hrID("web") {
		t.Fatalf("actions = %+v, want web asked once db and its CRD are ready", act)
	}
}

// TestWalkerWaitsForHelmReleasesAReadyNodeApplied: a Kustomization whose
// inventory names a HelmRelease not seen yet keeps the walk open when
// HelmReleases are walked, and not when they are not.
func TestWalkerWaitsForHelmReleasesAReadyNodeApplied(t *testing.T) {
	for _, kinds := range [][]string{{flux.KindKustomization}, {flux.KindKustomization, flux.KindHelmRelease}} {
		root := readyAt(node("root", false), "")
		root.Inventory = []string{"apps_web_helm.toolkit.fluxcd.io_HelmRelease"}
		w := newTestWalker(Options{Kinds: kinds}, root)
		w.Step(t0)
		if want := len(kinds) == 1; w.Finished() != want {
			t.Errorf("kinds %v: Finished() = %v, want %v", kinds, w.Finished(), want)
		}
	}
}

// TestWalkerExplainsAChartThatRefusesAPreAppliedCRD: Helm refusing a CRD
// this walk pre-applied (a release without take-ownership, a chart with the
// CRD in templates/) fails the HelmRelease at once, naming the
// Kustomization it was pre-applied for and the commands that finish the
// repair; no retry would pass.
func TestWalkerExplainsAChartThatRefusesAPreAppliedCRD(t *testing.T) {
	const refusal = `Helm install failed for release apps/web with chart sprockets@1.0.0: unable to continue with install: CustomResourceDefinition "sprockets.templates.standup.test" in namespace "" exists and cannot be imported into the current release: invalid ownership metadata; label validation error: missing key "app.kubernetes.io/managed-by": must be set to "Helm"; annotation validation error: missing key "meta.helm.sh/release-name": must be set to "web"; annotation validation error: missing key "meta.helm.sh/release-namespace": must be set to "apps"`
	for _, ours := range []bool{true, false} {
		web := hr("web", func(o *flux.Object) { o.Ready, o.ObservedGeneration = nil, 0 })
		w := NewWalker(Options{Kinds: []string{flux.KindKustomization, flux.KindHelmRelease}}, t0)
		w.ObserveSource(helmChart, "1.0.0")
		w.ObserveObject(web)
		if ours {
			w.preApplied["sprockets.templates.standup.test"] = ksID("app")
		}
		act, _, _ := w.Step(t0)
		if len(act) != 1 {
			t.Fatalf("actions %+v, want web asked", act)
		}
		web.RequestedAt, web.LastHandledReconcileAt, web.ObservedGeneration = act[0].Token, act[0].Token, 1
		web.Ready = &flux.Condition{Status: "False", Reason: "InstallFailed", Message: refusal}
		w.ObserveObject(web)
		_, evs, _ := w.Step(t0.Add(time.Second))
		if p, _ := w.Phase(hrID("web")); p != PhaseFailed {
			t.Fatalf("ours=%v: web is %s, want failed at once", ours, p)
		}
		msg := evs[len(evs)-1].Message
		for _, want := range []string{
			"kubectl label CustomResourceDefinition sprockets.templates.standup.test app.kubernetes.io/managed-by=Helm",
			"meta.helm.sh/release-name=web meta.helm.sh/release-namespace=apps",
			"flux reconcile hr web -n apps --reset",
		} {
			if !strings.Contains(msg, want) {
				t.Errorf("ours=%v: message lacks %q:\n%s", ours, want, msg)
			}
		}
		if got := strings.Contains(msg, "standup pre-applied it for Kustomization/flux-system/app"); got != ours {
			t.Errorf("ours=%v: message names the pre-apply = %v:\n%s", ours, got, msg)
		}
	}
}

// TestWalkerBlocksAKustomizationWaitingOnAFailedRelease: a Kustomization
// with spec.wait holds until every object it applied is Ready; when a
// HelmRelease it applied fails for good, the walk says so at once instead
// of waiting for kustomize-controller's timeout. Without spec.wait it is
// left to Flux.
func TestWalkerBlocksAKustomizationWaitingOnAFailedRelease(t *testing.T) {
	for _, waits := range []bool{true, false} {
		app := node("app", false)
		app.Wait = waits
		w := newTestWalker(Options{Kinds: []string{flux.KindKustomization, flux.KindHelmRelease}}, app)
		act, _, _ := w.Step(t0)
		only(t, act, ActionReconcile, "app")
		web := hr("web", func(o *flux.Object) {
			o.AppliedBy = &tiers.ID{Kind: flux.KindKustomization, Namespace: "flux-system", Name: "app"}
			o.Ready, o.ObservedGeneration = nil, 0
		})
		w.ObserveSource(helmChart, "1.0.0")
		w.ObserveObject(web)
		act, _, _ = w.Step(t0.Add(time.Second))
		web.RequestedAt, web.LastHandledReconcileAt, web.ObservedGeneration = act[0].Token, act[0].Token, 1
		web.Ready = &flux.Condition{Status: "False", Reason: "InstallFailed", Message: "Helm install failed"}
		web.Stalled = &flux.Condition{Status: "True", Reason: "RetriesExceeded", Message: "Failed to install after 1 attempt(s)"}
		w.ObserveObject(web)
		w.Step(t0.Add(2 * time.Second))
		want := PhaseReconciling
		if waits {
			want = PhaseBlocked
		}
		phase(t, w, "app", want)
	}
}

// TestWalkerWithAppliedWalksWhatASelectedNodeApplied: crds walks only the
// Kustomizations it repairs (Selection.Only), and with WithApplied the
// HelmReleases they apply too, as they appear: each is asked to reconcile
// and counted in the summary. A HelmRelease another Kustomization applied
// is not walked; without WithApplied, neither is.
func TestWalkerWithAppliedWalksWhatASelectedNodeApplied(t *testing.T) {
	for _, withApplied := range []bool{true, false} {
		app, other := node("app", false), node("other", false)
		w := newTestWalker(Options{Kinds: []string{flux.KindKustomization, flux.KindHelmRelease}, WithApplied: withApplied,
			Selection: tiers.Selection{Only: []string{"flux-system/app"}}}, app, other)
		act, _, _ := w.Step(t0)
		only(t, act, ActionReconcile, "app")
		appliedBy := func(ks string) func(*flux.Object) {
			return func(o *flux.Object) {
				id := ksID(ks)
				o.AppliedBy, o.Ready, o.ObservedGeneration = &id, nil, 0
			}
		}
		w.ObserveSource(helmChart, "1.0.0")
		w.ObserveObject(hr("web", appliedBy("app")))
		w.ObserveObject(hr("stray", appliedBy("other")))
		act, _, _ = w.Step(t0.Add(time.Second))
		var asked []string
		for _, a := range act {
			asked = append(asked, a.Node.String())
		}
		want := []string{}
		if withApplied {
			want = []string{hrID("web").String()}
		}
		if strings.Join(asked, " ") != strings.Join(want, " ") {
			t.Errorf("withApplied=%v: asked %q, want %q", withApplied, asked, want)
		}
		wantTotal := 1
		if withApplied {
			wantTotal = 2
		}
		if s := w.Summary(t0.Add(time.Second), false); s.Total != wantTotal {
			t.Errorf("withApplied=%v: summary counts %d nodes, want %d", withApplied, s.Total, wantTotal)
		}
	}
}

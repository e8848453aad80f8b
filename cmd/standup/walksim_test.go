package main

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

// A simulated walk: the real walker, driven by a stand-in for
// kustomize-controller that answers each reconcile request at once, so
// that a test reads the Summary a walk of a given kind ends with, and the
// exit code the command returns for it, without a cluster.

var (
	simStart = time.Date(2026, 9, 5, 3, 0, 0, 0, time.UTC)
	simRepo  = tiers.ID{Kind: "GitRepository", Namespace: "flux-system", Name: "flux-system"}
)

const simRev = "main@sha1:1111111111111111111111111111111111111111"

// simOutcome is what the stand-in controller makes of a request.
type simOutcome int

const (
	// simReady: the reconcile ends Ready.
	simReady simOutcome = iota
	// simBuildFails: the build fails (BuildFailed): a hard failure.
	simBuildFails
	// simDryRunMissing: the dry-run fails on StorageProfile, a kind the
	// cluster does not serve (the cold-start deadlock), until a pre-apply
	// creates its CRD.
	simDryRunMissing
	// simHangs: the controller takes the request up and never ends it
	// (a health check that never passes): the node's deadline ends it.
	simHangs
)

// simNode is a Kustomization of a simulated walk.
type simNode struct {
	ns, name  string
	deps      []string // namespace/name or name, in ns
	suspended bool
	ready     bool // Ready at the source's revision before the walk
	outcome   simOutcome
}

func (n simNode) id() tiers.ID {
	ns := n.ns
	if ns == "" {
		ns = "flux-system"
	}
	return tiers.ID{Kind: flux.KindKustomization, Namespace: ns, Name: n.name}
}

func (n simNode) object() flux.Object {
	id := n.id()
	o := flux.Object{Node: tiers.Node{ID: id}, SourceRef: simRepo, Suspended: n.suspended, Generation: 1, Timeout: time.Minute}
	for _, d := range n.deps {
		ns, name, ok := strings.Cut(d, "/")
		if !ok {
			ns, name = id.Namespace, d
		}
		o.DependsOn = append(o.DependsOn, tiers.Dependency{ID: tiers.ID{Kind: flux.KindKustomization, Namespace: ns, Name: name}})
	}
	if n.ready {
		o.ObservedGeneration = 1
		o.Ready = &flux.Condition{Status: "True", Reason: "ReconciliationSucceeded", Message: "Applied revision: " + simRev}
		o.LastAppliedRevision = simRev
	}
	return o
}

// simCRD is the CRD a repair pre-applies for simDryRunMissing.
const simCRD = "storageprofiles.cdi.kubevirt.io"

// answer is the object after the stand-in controller handled token;
// created says StorageProfile's CRD exists, so its dry-run passes.
func (n simNode) answer(o flux.Object, token string, created bool) flux.Object {
	if n.outcome == simDryRunMissing && created {
		n.outcome = simReady
	}
	o.Suspended = false
	o.RequestedAt = token
	switch n.outcome {
	case simHangs:
		o.Ready = &flux.Condition{Status: "Unknown", Reason: "Progressing", Message: "Reconciliation in progress"}
		o.Reconciling = &flux.Condition{Status: "True", Reason: "Progressing", Message: "Running health checks for revision " + simRev + " with a timeout of 1m0s"}
		return o
	case simBuildFails:
		o.Ready = &flux.Condition{Status: "False", Reason: "BuildFailed", Message: "kustomize build failed: accumulating resources"}
	case simDryRunMissing:
		o.Ready = &flux.Condition{Status: "False", Reason: "ReconciliationFailed",
			Message: `StorageProfile/longhorn dry-run failed: no matches for kind "StorageProfile" in version "cdi.kubevirt.io/v1beta1"`}
	default:
		o.Ready = &flux.Condition{Status: "True", Reason: "ReconciliationSucceeded", Message: "Applied revision: " + simRev}
		o.LastAppliedRevision = simRev
	}
	o.LastHandledReconcileAt, o.ObservedGeneration = token, o.Generation
	return o
}

// simWalk runs the walker over nodes with opts until it finishes or, after
// limit, stops as --timeout would stop it. It returns the summary and
// whether the walk finished.
func simWalk(t *testing.T, opts wait.Options, limit time.Duration, nodes ...simNode) (wait.Summary, bool) {
	t.Helper()
	w := wait.NewWalker(opts, simStart)
	w.ObserveSource(simRepo, simRev)
	objs := map[tiers.ID]flux.Object{}
	byID := map[tiers.ID]simNode{}
	for _, n := range nodes {
		objs[n.id()], byID[n.id()] = n.object(), n
		w.ObserveObject(objs[n.id()])
	}
	created := false // the pre-apply created StorageProfile's CRD
	now := simStart
	for range 10000 {
		if w.Finished() || now.Sub(simStart) > limit {
			break
		}
		actions, _, next := w.Step(now)
		if err := w.GraphError(); err != nil {
			t.Fatalf("simulated walk: %v", err)
		}
		for _, a := range actions {
			switch a.Kind {
			case wait.ActionReconcile:
				w.Done(wait.ActionResult{Action: a})
				objs[a.Node] = byID[a.Node].answer(objs[a.Node], a.Token, created)
				w.ObserveObject(objs[a.Node])
			case wait.ActionPreApplyCRDs:
				w.Done(wait.ActionResult{Action: a, Applied: []string{simCRD}})
				w.ObserveCRD(simCRD, schema.GroupKind{Group: "cdi.kubevirt.io", Kind: "StorageProfile"}, true)
				created = true
			}
		}
		switch {
		case len(actions) > 0:
			now = now.Add(100 * time.Millisecond)
		case next.IsZero() || next.After(simStart.Add(limit)):
			now = simStart.Add(limit + time.Nanosecond)
		default:
			now = next.Add(time.Millisecond) // a timer fires a little late, never early
		}
	}
	return w.Summary(now, false), w.Finished()
}

// simCycle is the error a walk of a graph with a cycle ends with.
func simCycle(t *testing.T) error {
	t.Helper()
	w := wait.NewWalker(wait.Options{}, simStart)
	for _, n := range []simNode{{name: "a", deps: []string{"b"}}, {name: "b", deps: []string{"a"}}} {
		w.ObserveObject(n.object())
	}
	w.Step(simStart)
	if w.GraphError() == nil {
		t.Fatal("a cycle gave no graph error")
	}
	return w.GraphError()
}

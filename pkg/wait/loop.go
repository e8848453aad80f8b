package wait

import (
	"context"
	"fmt"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

// Resources the walk watches besides Flux's own (flux.KustomizationGVR,
// flux.HelmReleaseGVR, flux.SourceGVR).
var crdsGVR = apiextensionsv1.SchemeGroupVersion.WithResource("customresourcedefinitions")

// Loop is the I/O around a Walker: watches feed it objects, and it performs
// the actions the walker decides. It watches every namespace: a walk
// narrowed to one (Options.Selection.Namespace) still waits on the
// dependencies its nodes have elsewhere. It watches the kinds
// Options.Kinds walks: HelmReleases from the moment the CRD watch shows
// their API established (on a cold start, the root installs
// helm-controller), ResourceSets likewise once theirs is (the Flux
// Operator's), and each source kind once a node references it.
type Loop struct {
	Dynamic dynamic.Interface
	Client  client.Client
	Options Options
	// Bundle supplies CRDs for deadlock remediation; nil disables pre-apply.
	Bundle *crds.Bundle
	// OnEvent receives every event, in order, from the loop's goroutine.
	OnEvent func(Event)
	// OnGraph, when set, receives the graph once, when the walk first has
	// it, before the events of that Step (the incident record's graph).
	OnGraph func(*tiers.Graph)
	// Resync is the informers' resync period; zero means none.
	Resync time.Duration
	// Cluster performs the walk's writes; nil writes through Client
	// (NewCluster).
	Cluster Cluster
	// Spokes are the remote clusters the walk reaches (spoke.go): their
	// CRDs are watched, their triggers read and their missing CRDs
	// pre-applied on them.
	Spokes []Spoke
	// uids are the uids of the nodes and CRDs the watches have shown,
	// written and read on the loop's goroutine (UID).
	uids map[tiers.ID]types.UID
}

// UID is the uid of the Kustomization, HelmRelease or CRD (tiers.ID with
// Kind CustomResourceDefinition and the CRD's name) the walk has seen; ""
// when it has not. Call it from OnEvent or after Run, on the loop's
// goroutine: an Event's regarding object carries it, so that kubectl
// describe finds the Event.
func (l *Loop) UID(id tiers.ID) types.UID { return l.uids[id] }

func (l *Loop) rememberUID(id tiers.ID, uid types.UID, deleted bool) {
	if l.uids == nil {
		l.uids = map[tiers.ID]types.UID{}
	}
	if deleted {
		delete(l.uids, id)
		return
	}
	l.uids[id] = uid
}

// Run walks until every selected node has ended, ctx ends, or the graph is
// invalid. It returns the summary; the error is non-nil for a cycle, a
// failed mutation, or cancellation.
func (l *Loop) Run(ctx context.Context) (Summary, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	box := &inbox{signal: make(chan struct{}, 1)}
	factory := dynamicinformer.NewDynamicSharedInformerFactory(l.Dynamic, l.Resync)
	opts := l.Options
	opts.Bundle = l.Bundle
	opts.Spokes = l.spokeViews()
	w := NewWalker(opts, time.Now())
	crdInformer := watchInto(factory, crdsGVR, box, cancel)
	syncs := []toolscache.InformerSynced{crdInformer.HasSynced}
	spokeCRDs, spokeSyncs := l.watchSpokes(ctx, box, cancel)
	syncs = append(syncs, spokeSyncs...)
	if w.walks(flux.KindKustomization) {
		syncs = append(syncs, watchInto(factory, flux.KustomizationGVR, box, cancel).HasSynced)
	}
	factory.Start(ctx.Done())
	if !toolscache.WaitForCacheSync(ctx.Done(), syncs...) {
		if err := watchRefusal(ctx); err != nil {
			return Summary{}, err
		}
		return Summary{}, fmt.Errorf("initial list of Kustomizations and CRDs did not complete: %w", context.Cause(ctx))
	}
	watched := map[string]bool{}
	sourceFactory := dynamicinformer.NewDynamicSharedInformerFactory(l.Dynamic, l.Resync)
	act := l.actor()
	graphSent := false
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		// Drain until quiet: a newly watched source kind's initial list lands
		// in the inbox too, and no node may be judged without its revision.
		for items := box.drain(); len(items) > 0; items = box.drain() {
			for _, o := range items {
				var err error
				switch src := l.observe(w, o); {
				case src != "":
					if gvr, ok := flux.SourceGVR(src); ok {
						err = l.watchKind(ctx, sourceFactory, box, cancel, watched, gvr)
					}
				case w.walks(flux.KindHelmRelease) && helmAPIServed(o):
					err = l.watchKind(ctx, factory, box, cancel, watched, flux.HelmReleaseGVR)
				case w.walks(flux.KindResourceSet) && resourceSetAPIServed(o):
					err = l.watchKind(ctx, factory, box, cancel, watched, flux.ResourceSetGVR)
				}
				if err != nil {
					if fatal := watchRefusal(ctx); fatal != nil {
						return w.Summary(time.Now(), false), fatal
					}
					return w.Summary(time.Now(), true), err
				}
			}
		}
		now := time.Now()
		actions, events, next := w.Step(now)
		if err := w.GraphError(); err != nil {
			return w.Summary(now, false), err
		}
		if g := w.Graph(); l.OnGraph != nil && g != nil && !graphSent {
			l.OnGraph(g)
			graphSent = true
		}
		l.emit(events)
		if interrupted, err := l.performAll(ctx, act, w, actions); err != nil {
			return w.Summary(time.Now(), interrupted), err
		}
		// The trigger facts a deadlock's proof asked for are read now, so
		// that the next Step proves with them.
		gathered := l.gatherTriggers(ctx, w, crdInformer.GetStore())
		gathered = l.gatherSpokeTriggers(ctx, w, spokeCRDs) || gathered
		// So are the progress reads of a wait for an operator, when due.
		progressed := l.gatherProgress(ctx, w, crdInformer.GetStore())
		if len(actions) > 0 || gathered || progressed {
			continue // results and our own writes come back as observations
		}
		if w.Finished() {
			return w.Summary(time.Now(), false), nil
		}
		resetTimer(timer, next)
		select {
		case <-ctx.Done():
			if fatal := watchRefusal(ctx); fatal != nil {
				return w.Summary(time.Now(), false), fatal
			}
			return w.Summary(time.Now(), true), ctx.Err()
		case <-box.signal:
		case <-timer.C:
		}
	}
}

func resetTimer(t *time.Timer, next time.Time) {
	d := time.Hour
	if !next.IsZero() {
		d = time.Until(next) + 10*time.Millisecond
	}
	if !t.Stop() {
		select {
		case <-t.C:
		default:
		}
	}
	t.Reset(max(d, 0))
}

func (l *Loop) emit(events []Event) {
	if l.OnEvent == nil {
		return
	}
	for _, e := range events {
		l.OnEvent(e)
	}
}

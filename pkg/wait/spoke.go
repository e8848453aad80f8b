package wait

import (
	"context"
	"fmt"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/tiers"
)

// Hub and spoke: a Kustomization or a HelmRelease with spec.kubeConfig
// lives on the hub (the cluster standup connects to, where its controller
// runs) and applies to a spoke, the cluster its kubeConfig Secret names.
// What its dry-run misses is missing on the spoke: the walker looks the
// kinds up in the spoke's CRD watch, reads the triggers there, and the
// loop pre-applies the CRDs there, from the spoke's bundle. The walk's
// reconcile requests stay on the hub, where the objects are.

// SpokeView is what the walker knows of a spoke it reaches.
type SpokeView struct {
	// Name is the spoke's name in messages: its Secret's name, as tiers
	// shows the target.
	Name string
	// Bundle supplies the spoke's missing CRDs; nil: none (the spoke's
	// deadlocks are reported, not repaired).
	Bundle *crds.Bundle
}

// Spoke is a remote cluster the loop reaches through a kubeConfig Secret.
type Spoke struct {
	// Secret is the kubeConfig Secret, namespace/name
	// (flux.Object.TargetSecret).
	Secret string
	SpokeView
	Dynamic dynamic.Interface
	Client  client.Client
	// Cluster performs the pre-applies on the spoke; nil writes through
	// Client (NewCluster).
	Cluster Cluster
}

// clusterOf is the spoke id applies to, by its kubeConfig Secret, when
// the walk reaches it; "" when id applies to the hub, or to a spoke the
// walk does not reach (the hub's view, unreached).
func (w *Walker) clusterOf(id tiers.ID) string {
	secret := w.objs[id].TargetSecret()
	if _, ok := w.opts.Spokes[secret]; secret != "" && ok {
		return secret
	}
	return ""
}

// unreached returns the kubeConfig Secret of id when id applies to a spoke
// the walk does not reach: its missing kinds are looked up on the hub,
// which is not where they are missing, so nothing is pre-applied for it.
func (w *Walker) unreached(id tiers.ID) (string, bool) {
	secret := w.objs[id].TargetSecret()
	if _, ok := w.opts.Spokes[secret]; secret == "" || ok {
		return "", false
	}
	return secret, true
}

// lookupOn answers from cluster's CRD watch ("" the hub's).
func (w *Walker) lookupOn(cluster string) crds.CRDLookup {
	gks := w.crdGK
	if cluster != "" {
		gks = w.spokeGK[cluster]
	}
	return func(gk schema.GroupKind) crds.CRDPresence {
		ready, ok := gks[gk]
		switch {
		case !ok:
			return crds.CRDAbsent
		case ready:
			return crds.CRDEstablished
		default:
			return crds.CRDPending
		}
	}
}

// lookupFor is lookupOn the cluster id applies to.
func (w *Walker) lookupFor(id tiers.ID) crds.CRDLookup { return w.lookupOn(w.clusterOf(id)) }

// crdReady reports whether the CRD name is established on cluster.
func (w *Walker) crdReady(cluster, name string) bool {
	if cluster == "" {
		return w.crds[name]
	}
	return w.spokeCRDs[cluster][name]
}

// bundleFor is the bundle of the cluster id applies to.
func (w *Walker) bundleFor(id tiers.ID) *crds.Bundle {
	if c := w.clusterOf(id); c != "" {
		return w.opts.Spokes[c].Bundle
	}
	return w.opts.Bundle
}

// onCluster names a spoke in a message: " on cluster NAME (Secret
// namespace/name)"; "" for the hub.
func (w *Walker) onCluster(cluster string) string {
	if cluster == "" {
		return ""
	}
	return OnCluster(w.opts.Spokes[cluster].Name, cluster)
}

// OnCluster is how a message names the spoke a mutation or a reading was
// made on: " on cluster NAME (Secret namespace/name)".
func OnCluster(name, secret string) string {
	return fmt.Sprintf(" on cluster %s (Secret %s)", name, secret)
}

// ObserveSpokeCRD records a CRD of the spoke whose kubeConfig Secret is
// cluster, and whether it is established with names accepted.
func (w *Walker) ObserveSpokeCRD(cluster, name string, gk schema.GroupKind, ready bool) {
	if old, ok := w.spokeCRDs[cluster][name]; ok && old == ready {
		return
	}
	if w.spokeCRDs[cluster] == nil {
		w.spokeCRDs[cluster], w.spokeGK[cluster] = map[string]bool{}, map[schema.GroupKind]bool{}
	}
	w.seq++
	w.spokeCRDs[cluster][name] = ready
	w.spokeGK[cluster][gk] = ready
	w.unsettle(tiers.ID{}, true, true)
	w.touchBusy()
}

// ForgetSpokeCRD records that a CRD of a spoke was deleted.
func (w *Walker) ForgetSpokeCRD(cluster, name string, gk schema.GroupKind) {
	w.seq++
	delete(w.spokeCRDs[cluster], name)
	delete(w.spokeGK[cluster], gk)
	w.unsettle(tiers.ID{}, true, true)
	w.touchBusy()
}

// unreachedMessage says why a deadlock of a node on a spoke the walk does
// not reach is reported, not repaired.
func unreachedMessage(secret string) string {
	ns, name, _ := strings.Cut(secret, "/")
	return fmt.Sprintf("it applies to the cluster of Secret %s, which standup did not read: its missing kinds were looked up on the hub, and no CRD is pre-applied for it (never on the hub); grant get on secrets %s in namespace %s, or run standup on that cluster's kubeconfig", secret, name, ns)
}

// spokeViews is Options.Spokes for l.Spokes.
func (l *Loop) spokeViews() map[string]SpokeView {
	if len(l.Spokes) == 0 {
		return nil
	}
	out := make(map[string]SpokeView, len(l.Spokes))
	for _, s := range l.Spokes {
		out[s.Secret] = s.SpokeView
	}
	return out
}

// watchSpokes starts the CRD watch of every spoke, feeding box; it returns
// each watch's store, by Secret, and what tells that its initial list is in.
func (l *Loop) watchSpokes(ctx context.Context, box *inbox, stop context.CancelCauseFunc) (map[string]toolscache.Store, []toolscache.InformerSynced) {
	stores := map[string]toolscache.Store{}
	var syncs []toolscache.InformerSynced
	for _, s := range l.Spokes {
		f := dynamicinformer.NewDynamicSharedInformerFactory(s.Dynamic, l.Resync)
		inf := watchOn(s.Secret, f, crdsGVR, box, stop)
		f.Start(ctx.Done())
		stores[s.Secret] = inf.GetStore()
		syncs = append(syncs, inf.HasSynced)
	}
	return stores, syncs
}

// observeSpokeCRD feeds a spoke's CRD to w.
func observeSpokeCRD(w *Walker, cluster string, crd *apiextensionsv1.CustomResourceDefinition, gk schema.GroupKind, deleted bool) {
	if deleted {
		w.ForgetSpokeCRD(cluster, crd.Name, gk)
		return
	}
	w.ObserveSpokeCRD(cluster, crd.Name, gk, crds.Established(crd))
}

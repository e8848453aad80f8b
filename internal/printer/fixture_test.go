package printer

import (
	"testing"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

const revision = "main@sha1:4f2a9c0e1b7d3a5f6e8c9b0a1d2e3f4a5b6c7d8e"

func ksID(ns, name string) tiers.ID {
	return tiers.ID{Kind: "Kustomization", Namespace: ns, Name: name}
}

func ksObj(ns, name, path string, deps ...tiers.ID) flux.Object {
	o := flux.Object{
		Node:      tiers.Node{ID: ksID(ns, name)},
		Path:      path,
		SourceRef: tiers.ID{Kind: "GitRepository", Namespace: "flux-system", Name: "flux-system"},
	}
	for _, d := range deps {
		o.DependsOn = append(o.DependsOn, tiers.Dependency{ID: d})
	}
	return o
}

// homelabObjects is a Flux homelab shaped like the seed's: the flux-system
// root, platform (CNI), platform-config (CDI and KubeVirt CRs),
// platform-config-cdi (the StorageProfiles), apps-vms depending on both, a
// tenant Kustomization depending across namespaces on a same-named one, and
// the CNI's HelmRelease.
func homelabObjects() []flux.Object {
	root := ksID("flux-system", "flux-system")
	objs := []flux.Object{
		ksObj("flux-system", "flux-system", "./clusters/prod"),
		ksObj("flux-system", "platform", "./platform", root),
		ksObj("flux-system", "platform-config", "./platform-config", ksID("flux-system", "platform")),
		ksObj("flux-system", "platform-config-cdi", "./platform-config-cdi", ksID("flux-system", "platform-config")),
		ksObj("flux-system", "apps-vms", "./apps/vms", ksID("flux-system", "platform-config-cdi"), ksID("flux-system", "platform-config")),
		ksObj("flux-system", "apps", "./apps", ksID("flux-system", "platform-config")),
		ksObj("team-a", "apps", "./tenants/team-a"),
		{
			Node:      tiers.Node{ID: tiers.ID{Kind: "HelmRelease", Namespace: "kube-system", Name: "cilium"}},
			SourceRef: tiers.ID{Kind: "HelmChart", Namespace: "flux-system", Name: "kube-system-cilium"},
			File:      "platform/cilium/helmrelease.yaml",
		},
	}
	objs[6].DependsOn = []tiers.Dependency{{ID: ksID("flux-system", "apps"), ReadyExpr: "dep.status.lastAppliedRevision == self.status.lastAppliedRevision"}}
	for i := range objs {
		if objs[i].ID != root {
			objs[i].AppliedBy = &root
		}
		if objs[i].File == "" && objs[i].ID.Kind == "Kustomization" {
			objs[i].File = "clusters/prod/" + objs[i].ID.Name + ".yaml"
		}
	}
	objs[7].AppliedBy = &tiers.ID{Kind: "Kustomization", Namespace: "flux-system", Name: "platform"}
	return objs
}

func offlineReport(t *testing.T) TiersReport {
	t.Helper()
	objs := homelabObjects()
	return report(t, "examples/homelab/clusters/prod", objs, objs, nil)
}

// liveReport is a cold cluster mid-start: platform-config-cdi does not exist
// yet, the HelmRelease is known only as a node, and statuses vary.
func liveReport(t *testing.T) TiersReport {
	t.Helper()
	all := homelabObjects()
	var nodes, objs []flux.Object
	for i, o := range all {
		o.File = ""
		o.Generation, o.ObservedGeneration = int64(i+1), int64(i+1)
		switch o.ID.Name {
		case "platform-config-cdi":
			continue
		case "flux-system", "platform":
			o.Ready = &flux.Condition{Status: "True", Reason: "ReconciliationSucceeded", Message: "Applied revision: " + revision}
			o.LastAppliedRevision = revision
		case "platform-config":
			o.Ready = &flux.Condition{Status: "Unknown", Reason: "Progressing", Message: "Reconciliation in progress"}
		case "apps-vms":
			o.Ready = &flux.Condition{Status: "False", Reason: "DependencyNotReady", Message: "dependency 'flux-system/platform-config' is not ready"}
		case "apps":
			if o.ID.Namespace == "team-a" {
				o.Suspended = true
				o.Ready = &flux.Condition{Status: "True", Reason: "ReconciliationSucceeded", Message: "Applied revision: " + revision}
				o.LastAppliedRevision = revision
			}
		}
		nodes = append(nodes, o)
		if o.ID.Kind == "Kustomization" {
			objs = append(objs, o)
		}
	}
	warnings := []string{"HelmReleases are not listed live; kube-system/cilium is shown from the graph only"}
	return report(t, "cluster homelab-prod (all namespaces)", nodes, objs, warnings)
}

func report(t *testing.T, source string, nodes, objs []flux.Object, warnings []string) TiersReport {
	t.Helper()
	var tn []tiers.Node
	for _, o := range nodes {
		tn = append(tn, o.Node)
	}
	g, err := tiers.Build(tn, tiers.Options{AllowMissing: true})
	if err != nil {
		t.Fatal(err)
	}
	return NewTiersReport(source, g, objs, warnings)
}

// hubSpokeObjects is Flux's hub-and-spoke layout (flux2-hub-spoke-example)
// cut down: on the hub, staging's tenants and infra-configs apply to the
// spoke through the kubeConfig Secret staging/cluster-kubeconfig;
// infra-controllers applies on the hub a HelmRelease its patches point at
// the spoke; production's apps reach their cluster by workload identity
// (a configMapRef); flux-system stays on the hub.
func hubSpokeObjects() []flux.Object {
	root := ksID("flux-system", "flux-system")
	spoke := &flux.KubeConfigRef{SecretName: "cluster-kubeconfig"}
	controllers := ksID("staging", "infra-controllers")
	objs := []flux.Object{
		ksObj("flux-system", "flux-system", "./hub"),
		ksObj("staging", "tenants", "./clusters/staging/tenants"),
		ksObj("staging", "infra-controllers", "./clusters/staging/infra-controllers", ksID("staging", "tenants")),
		ksObj("staging", "infra-configs", "./clusters/staging/infra-configs", controllers),
		ksObj("production", "apps", "./clusters/production/apps"),
		{
			Node:       tiers.Node{ID: tiers.ID{Kind: "HelmRelease", Namespace: "staging", Name: "cert-manager"}},
			SourceRef:  tiers.ID{Kind: "HelmRepository", Namespace: "staging", Name: "cert-manager"},
			AppliedBy:  &controllers,
			KubeConfig: spoke,
			File:       "deploy/infra-controllers/cert-manager.yaml",
		},
	}
	objs[1].KubeConfig, objs[3].KubeConfig = spoke, spoke
	objs[4].KubeConfigMap = "aks-production"
	for i := range objs[1:5] {
		objs[i+1].AppliedBy = &root
		objs[i+1].File = "hub/" + objs[i+1].ID.Namespace + ".yaml"
	}
	objs[0].File = "hub/flux-system/gotk-sync.yaml"
	return objs
}

func hubSpokeReport(t *testing.T) TiersReport {
	t.Helper()
	objs := hubSpokeObjects()
	return report(t, "hub", objs, objs, nil)
}

// hubSpokeLiveReport is the hub mid-start: the spoke's tenants are Ready,
// the rest still progressing.
func hubSpokeLiveReport(t *testing.T) TiersReport {
	t.Helper()
	objs := hubSpokeObjects()
	for i := range objs {
		objs[i].File = ""
		objs[i].Generation, objs[i].ObservedGeneration = 1, 1
		objs[i].Ready = &flux.Condition{Status: "Unknown", Reason: "Progressing", Message: "Reconciliation in progress"}
		if objs[i].ID.Name == "flux-system" || objs[i].ID.Name == "tenants" {
			objs[i].Ready = &flux.Condition{Status: "True", Reason: "ReconciliationSucceeded", Message: "Applied revision: " + revision}
			objs[i].LastAppliedRevision = revision
		}
	}
	return report(t, "cluster hub (all namespaces)", objs, objs, nil)
}

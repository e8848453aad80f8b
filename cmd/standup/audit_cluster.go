package main

import (
	"context"
	"fmt"

	"github.com/kubestandup/standup/internal/printer/coldstart"
	"github.com/kubestandup/standup/pkg/audit"
	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

// runAuditFromCluster is `standup audit --from-cluster`: it reads the live
// CRDs and Kustomization inventories of a healthy cluster, renders the
// checkout, and prints the standup.yaml entries for the CRDs the checkout
// does not produce. It reads only; the skeleton goes to stdout.
func runAuditFromCluster(ctx context.Context, g globalOptions, opts auditOptions, streams Streams) error {
	res, cfg, err := renderCheckout(ctx, "audit --from-cluster", opts)
	if err != nil {
		return err
	}
	// A Kustomization left unrendered fails it: the skeleton derived from
	// the render would be wrong, not just short.
	if failed := unrendered(res.Failed); failed != nil {
		return failed
	}
	cl, err := connect(ctx, g)
	if err != nil {
		return err
	}
	present, err := crds.ListCRDs(ctx, cl.Client)
	if err != nil {
		return err
	}
	kss, err := flux.ListKustomizations(ctx, cl.Client, "")
	if err != nil {
		return err
	}
	inventories := make(map[tiers.ID][]string, len(kss))
	for _, ks := range kss {
		inventories[ks.ID] = flux.CRDsInInventory(ks.Inventory)
	}
	live := make([]audit.ClusterCRD, 0, len(present))
	for _, crd := range present {
		live = append(live, audit.ClusterCRDOf(crd))
	}
	sk, err := audit.BuildSkeleton(res, cfg, live, inventories)
	if err != nil {
		return err
	}
	if err := coldstart.PrintSkeleton(streams.Out, g.Output, sk); err != nil {
		return err
	}
	if !g.Quiet {
		declare := len(sk.Config.RuntimeCRDs) + len(sk.Config.ChartCRDs) + len(sk.Config.KustomizationCRDs)
		fmt.Fprintf(streams.Err, "audit --from-cluster: %d live CRDs, %d produced by %s, %d standup.yaml entries to add", len(present), sk.Produced, res.Path, declare)
		if sk.Placeholders > 0 {
			fmt.Fprintf(streams.Err, " (%d with a %s trigger to fill in)", sk.Placeholders, audit.TriggerPlaceholder)
		}
		fmt.Fprintln(streams.Err)
	}
	return nil
}

package main

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubestandup/standup/internal/printer/coldstart"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/record"
	"github.com/kubestandup/standup/pkg/rehearse"
	"github.com/kubestandup/standup/pkg/tiers"
)

// measures are the measured reconcile durations a rehearsal is given:
// where from, and by node.
type measures struct {
	source rehearse.Source
	// from names it for the header: the record file, the API server.
	from  string
	nodes map[tiers.ID]time.Duration
	// note is a warning for stderr about them; "" when none.
	note string
}

// measuredScenario gives the nodes of s the durations --from-record or
// --from-cluster measured, and says where each node's comes from; a note
// on stderr when none matched.
func measuredScenario(ctx context.Context, g globalOptions, opts rehearseOptions, s rehearse.Scenario, model rehearse.Model, path string, streams Streams) (rehearse.Scenario, coldstart.Durations, error) {
	measured, err := loadMeasures(ctx, g, opts)
	if err != nil {
		return s, coldstart.Durations{}, err
	}
	s, nodes := rehearse.Measure(s, model, measured.nodes, measured.source)
	d := coldstart.Durations{Source: measured.source, From: measured.from, Nodes: nodes}
	for _, n := range nodes {
		if n.Source != rehearse.SourceModel {
			d.Measured++
		}
	}
	if g.Quiet {
		return s, d, nil
	}
	if measured.note != "" {
		fmt.Fprintln(streams.Err, measured.note)
	}
	if measured.source != "" && d.Measured == 0 {
		fmt.Fprintf(streams.Err, "rehearse: no node of %s has a measured duration in the %s %s (%d measured there): every duration is the model's\n",
			path, measured.source, measured.from, len(measured.nodes))
	}
	return s, d, nil
}

// loadMeasures reads the durations --from-record or --from-cluster names;
// none without either.
func loadMeasures(ctx context.Context, g globalOptions, opts rehearseOptions) (measures, error) {
	switch {
	case opts.FromRecord != "":
		rec, err := readRecord("rehearse --from-record", opts.FromRecord)
		if err != nil {
			return measures{}, err
		}
		m := measures{source: rehearse.SourceRecord, from: opts.FromRecord, nodes: record.Analyze(rec).Reconciles()}
		if rec.Dropped != nil {
			m.note = fmt.Sprintf("rehearse: %s reached its size limit and kept no node lines past three quarters of it: a node that ended later has the model's duration", opts.FromRecord)
		}
		return m, nil
	case opts.FromCluster:
		cl, err := connect(ctx, g)
		if err != nil {
			return measures{}, fmt.Errorf("rehearse --from-cluster: %w", err)
		}
		objs, err := listKustomizations(ctx, cl)
		if err != nil {
			return measures{}, fmt.Errorf("rehearse --from-cluster: %w", err)
		}
		return measures{source: rehearse.SourceCluster, from: cl.Host, nodes: rehearse.FromHistory(objs)}, nil
	}
	return measures{}, nil
}

// listPage is how many Kustomizations one list request asks for.
const listPage = 500

// listKustomizations lists every Kustomization of the cluster, as the API
// serves them, a page at a time: reads only, each bounded by
// --request-timeout. HelmReleases are not listed: their status.history
// holds no reconcile duration (rehearse.FromHistory).
func listKustomizations(ctx context.Context, cl *cluster) ([]unstructured.Unstructured, error) {
	var out []unstructured.Unstructured
	res := cl.Dynamic.Resource(flux.KustomizationGVR)
	opts := metav1.ListOptions{Limit: listPage}
	for {
		list, err := res.List(ctx, opts)
		if err != nil {
			return nil, flux.ExplainKustomizations(err, "list")
		}
		out = append(out, list.Items...)
		if opts.Continue = list.GetContinue(); opts.Continue == "" {
			return out, nil
		}
	}
}

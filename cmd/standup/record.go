package main

import (
	"context"
	"time"

	"github.com/urfave/cli/v2"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubestandup/standup/internal/printer"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/kube"
	"github.com/kubestandup/standup/pkg/record"
	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

// recordFlag is --record of resume and crds.
func recordFlag(dest *string) cli.Flag {
	return &cli.StringFlag{Name: "record", TakesFile: true, Destination: dest,
		Usage: "write the incident record to `FILE` (NDJSON; it must not exist): the command, versions, graph, every event, decision and API request; read it with standup report"}
}

// commandLineKey is where Run keeps the command line for the record.
const commandLineKey = "commandLine"

// openRecord creates the record of path ("" for none) and writes its
// header. --dry-run records nothing, so the two are refused together.
func openRecord(ctx context.Context, g globalOptions, cl *cluster, path string, dryRun bool) (*record.Writer, error) {
	if path == "" {
		return nil, nil
	}
	if dryRun {
		return nil, usageErrorf("--record %s: a dry run changes nothing and records nothing; drop --record or --dry-run", path)
	}
	w, err := record.Create(path, 0)
	if err != nil {
		return nil, err
	}
	w.Header(record.Header{
		Command: g.CommandLine, Standup: buildVersion(), Server: cl.Host, Started: time.Now(),
		FluxAPIs: map[string]string{
			flux.KindKustomization: flux.KustomizationGVR.GroupVersion().String(),
			flux.KindHelmRelease:   flux.HelmReleaseGVR.GroupVersion().String(),
		},
		Controller: controllerImage(ctx, cl.Client),
	})
	cl.Counter.Observe(func(o kube.Observed) {
		r := record.Request{Verb: o.Verb, Resource: o.Resource, Path: o.Path, Code: o.Code, Duration: wait.Duration(o.Duration)}
		if o.Err != nil {
			r.Error = o.Err.Error()
		}
		w.Request(o.Start, r)
	})
	return w, nil
}

// controllerImage is kustomize-controller's image, where standup may list
// Flux's Deployments; "" otherwise (the record says what it could see).
func controllerImage(ctx context.Context, r client.Reader) string {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "DeploymentList"})
	if err := r.List(ctx, list, client.InNamespace(flux.InstallNamespace), client.MatchingLabels{flux.PartOfLabel: flux.PartOfValue}); err != nil {
		return ""
	}
	for _, d := range list.Items {
		if d.GetName() != "kustomize-controller" {
			continue
		}
		containers, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
		for _, c := range containers {
			if m, ok := c.(map[string]any); ok && m["name"] == "manager" {
				image, _ := m["image"].(string)
				return image
			}
		}
	}
	return ""
}

// recorded wires a walk's loop to the record as well as to out: every
// event, the graph when the walk first has it, and the summary at the
// end (closeRecorded). A nil record leaves the loop as it is.
func recorded(loop *wait.Loop, out printer.WalkPrinter, rec *record.Writer) {
	loop.OnEvent = out.Event
	if rec == nil {
		return
	}
	loop.OnEvent = func(e wait.Event) {
		out.Event(e)
		rec.Event(e)
	}
	loop.OnGraph = func(g *tiers.Graph) { rec.Graph(g) }
}

// closeRecorded writes the summary to the record and closes it; an error
// writing the record is the command's, unless the walk had one.
func closeRecorded(rec *record.Writer, summary wait.Summary, err error) error {
	if rec == nil {
		return err
	}
	rec.Event(wait.Event{Time: time.Now(), Type: wait.EventSummary, Summary: &summary})
	if cerr := rec.Close(); cerr != nil && err == nil {
		return cerr
	}
	return err
}

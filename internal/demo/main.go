// Command demo starts the test world for `make demo` (scripts/demo.sh): a
// real kube-apiserver, etcd and kustomize-controller (internal/testenv), a
// repository published as the GitRepository flux-system/flux-system, its
// root Kustomization, and a simulated cdi-operator that creates CRDs at
// runtime once a CDI object exists. It prints KUBECONFIG=<path> on stdout
// when the world is up and runs until SIGINT or SIGTERM, then tears the
// world down. Progress goes to stderr.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubestandup/standup/internal/testenv"
)

// options are the demo world's flags.
type options struct {
	Repo              string
	Path              string
	RuntimeCRDs       []string
	RequeueDependency time.Duration
	OperatorDelay     time.Duration
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "demo world: %v\n", err)
		os.Exit(1)
	}
}

func parse(args []string, stderr io.Writer) (options, error) {
	opts := options{}
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&opts.Repo, "repo", "examples/homelab-deadlock", "directory published as GitRepository flux-system/flux-system")
	fs.StringVar(&opts.Path, "path", "./clusters/prod", "spec.path of the root Kustomization flux-system/flux-system")
	crdFiles := fs.String("runtime-crds", "examples/homelab-deadlock/bootstrap/crds/storageprofiles.cdi.kubevirt.io.yaml",
		"comma-separated CRD files the simulated cdi-operator creates once a CDI object exists")
	fs.DurationVar(&opts.RequeueDependency, "requeue-dependency", 5*time.Second, "kustomize-controller --requeue-dependency (Flux's default is 30s)")
	fs.DurationVar(&opts.OperatorDelay, "operator-delay", 2*time.Second, "how long the simulated operator takes to create its CRDs")
	if err := fs.Parse(args); err != nil {
		return opts, err
	}
	for _, f := range strings.Split(*crdFiles, ",") {
		if f = strings.TrimSpace(f); f != "" {
			opts.RuntimeCRDs = append(opts.RuntimeCRDs, f)
		}
	}
	return opts, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	opts, err := parse(args, stderr)
	if err != nil {
		return err
	}
	var operatorCRDs []*apiextensionsv1.CustomResourceDefinition
	for _, f := range opts.RuntimeCRDs {
		crd, err := testenv.LoadCRD(f)
		if err != nil {
			return err
		}
		operatorCRDs = append(operatorCRDs, crd)
	}
	start := time.Now()
	// A signal during start-up must not cancel it: the world is always
	// started to the end and then stopped, so that no kube-apiserver or etcd
	// outlives the demo. ctx only decides when to stop.
	startCtx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	w, err := testenv.Start(startCtx, testenv.Options{ControllerArgs: []string{"--requeue-dependency=" + opts.RequeueDependency.String()}})
	if err != nil {
		return err
	}
	defer w.Stop()
	if err := load(startCtx, w, opts, operatorCRDs); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "demo world: kube-apiserver, etcd and kustomize-controller %s up in %.1fs (%s)\n",
		testenv.KustomizeControllerVersion, time.Since(start).Seconds(), w.Dir)
	fmt.Fprintf(stdout, "KUBECONFIG=%s\n", w.Kubeconfig)
	<-ctx.Done()
	fmt.Fprintln(stderr, "demo world: stopping")
	return nil
}

// load publishes the repository, starts the simulated operator and creates
// the root Kustomization, as `flux bootstrap` would have left a cluster.
func load(ctx context.Context, w *testenv.World, opts options, operatorCRDs []*apiextensionsv1.CustomResourceDefinition) error {
	if err := w.CreateNamespace(ctx, "flux-system"); err != nil {
		return err
	}
	if _, err := w.Artifacts.Publish(ctx, w.Client, "flux-system", "flux-system", opts.Repo); err != nil {
		return fmt.Errorf("publish %s: %w", opts.Repo, err)
	}
	if len(operatorCRDs) > 0 {
		w.StartOperator(&testenv.RuntimeCRDOperator{
			Trigger: schema.GroupVersionResource{Group: "cdi.kubevirt.io", Version: "v1beta1", Resource: "cdis"},
			CRDs:    operatorCRDs, Delay: opts.OperatorDelay,
		})
	}
	root := testenv.KS{Namespace: "flux-system", Name: "flux-system", Path: opts.Path, Source: "flux-system", Prune: true}
	if err := w.Client.Create(ctx, root.Kustomization()); err != nil {
		return fmt.Errorf("Kustomization/flux-system/flux-system create failed: %w", err)
	}
	return nil
}

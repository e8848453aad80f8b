package testenv

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

// Options configure a World.
type Options struct {
	// ControllerBinary names the kustomize-controller binary inside the
	// assets directory; empty means "kustomize-controller" (the default release).
	ControllerBinary string
	// NoController starts only the control plane.
	NoController bool
	// ControllerArgs are extra flags for kustomize-controller.
	ControllerArgs []string
	// ControllerTempDir is where kustomize-controller's TMPDIR is made (a
	// fresh directory per start, removed when it stops); empty is the
	// world's own directory. kustomize-controller untars the whole source
	// artifact there on every reconcile: a benchmark on a shared machine
	// whose disk is contended gives it a tmpfs (/dev/shm), as a node's
	// emptyDir on an idle disk would be.
	ControllerTempDir string
	// APIAudit starts kube-apiserver with its audit log on (see
	// EnableAPIAudit), so that a test can read it without the restart
	// EnableAPIAudit costs.
	APIAudit bool
	// APIServerFlags ("--name=value") are set on kube-apiserver's command
	// line from the start, as StartAPIServer sets them on a restart.
	APIServerFlags []string
	// PriorityAndFairness serves API priority and fairness, as every
	// cluster has since Kubernetes 1.20. Flux's controllers ask at start
	// (fluxcd/pkg/runtime/client.GetConfigOrDie) and, finding it, turn
	// their client-side rate limit off; without it kustomize-controller
	// writes at most --kube-api-qps (50) requests a second per kind, which
	// a cold start of a few hundred Kustomizations (a dozen status writes
	// each) reaches. Benchmarks need a cluster's behaviour; tests leave it
	// off for a quicker start (leanAPIServer).
	PriorityAndFairness bool
	// Helm makes it a world of helm-controller too: the API server serves
	// HelmReleases, HelmCharts and HelmRepositories, helm-controller runs
	// beside kustomize-controller (unless NoController), and the world
	// plays source-controller for HelmCharts (PublishChart). Worlds without
	// it serve no HelmRelease API, as a cluster without helm-controller.
	Helm bool
	// HelmControllerArgs are extra flags for helm-controller.
	HelmControllerArgs []string
	// FluxOperator makes it a world of the Flux Operator too: the API
	// server serves its CRDs (ResourceSet, ResourceSetInputProvider,
	// FluxInstance, FluxReport), and the operator, built by
	// scripts/testenv.sh beside the other assets (FluxOperatorAssetsDir),
	// runs beside kustomize-controller (unless NoController). Only Start
	// and New start it; a Shared world does not.
	FluxOperator bool
	// FluxOperatorArgs are extra flags for the Flux Operator.
	FluxOperatorArgs []string
}

// controlPlane is opts without the controllers: what a Pool's worlds of
// the same control plane share, whichever controllers each test runs.
func (opts Options) controlPlane() Options {
	return Options{NoController: true, APIAudit: opts.APIAudit, APIServerFlags: slices.Clone(opts.APIServerFlags), Helm: opts.Helm,
		PriorityAndFairness: opts.PriorityAndFairness, FluxOperator: opts.FluxOperator}
}

// planeKey names opts' control plane for Pool.
func (opts Options) planeKey() string {
	return fmt.Sprintf("audit=%v flags=%q helm=%v apf=%v operator=%v", opts.APIAudit, opts.APIServerFlags, opts.Helm, opts.PriorityAndFairness, opts.FluxOperator)
}

// World is one running test world. Every World has its own temporary
// directory, loopback ports, etcd and kube-apiserver.
type World struct {
	Env        *envtest.Environment
	Config     *rest.Config
	Client     client.Client
	Dynamic    dynamic.Interface
	Kubeconfig string
	Dir        string
	Assets     string
	Artifacts  *ArtifactServer
	Controller *Controller
	// HelmController runs in worlds of Options.Helm (nil otherwise).
	HelmController *Controller
	// FluxOperator runs in worlds of Options.FluxOperator (nil otherwise).
	FluxOperator *Controller

	// StartupTime is how long the control plane took to start.
	StartupTime time.Duration
	cancel      context.CancelFunc
	ctx         context.Context

	// scope is the context of the test holding a shared world (nil for a
	// world of its own): background helpers started during that test stop
	// with it, and helpers counts those that must have stopped before the
	// world is cleaned for the next test.
	scopeMu sync.Mutex
	scope   context.Context
	helpers sync.WaitGroup

	// charts are the charts PublishChart stored during this turn (worlds
	// of Options.Helm).
	charts *chartStore
}

// Scheme returns a scheme holding every type the test world uses.
func Scheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	builder := runtime.NewSchemeBuilder(corev1.AddToScheme, rbacv1.AddToScheme, apiextensionsv1.AddToScheme, kustomizev1.AddToScheme, sourcev1.AddToScheme)
	if err := builder.AddToScheme(s); err != nil {
		return nil, fmt.Errorf("test world scheme: %w", err)
	}
	return s, nil
}

// Start starts a new world. The caller must call Stop.
func Start(ctx context.Context, opts Options) (*World, error) {
	w, err := start(ctx, opts)
	if err != nil {
		return nil, err
	}
	if opts.Helm {
		w.serveCharts()
	}
	return w, nil
}

// start starts a world without its background helpers: a shared world
// starts those for each test in its turn (Shared.lend).
func start(ctx context.Context, opts Options) (_ *World, err error) {
	assets, err := AssetsDir()
	if err != nil {
		return nil, err
	}
	// envtest logs through controller-runtime; the world's own log is the
	// controller's file, so keep test output for the tests.
	ctrllog.SetLogger(logr.Discard())
	dir, err := os.MkdirTemp("", "standup-world-")
	if err != nil {
		return nil, fmt.Errorf("test world: %w", err)
	}
	wctx, cancel := context.WithCancel(context.Background())
	w := &World{Dir: dir, Assets: assets, ctx: wctx, cancel: cancel}
	defer func() {
		if err != nil {
			w.Stop()
		}
	}()
	if err := os.MkdirAll(filepath.Join(dir, "tmp"), 0o755); err != nil {
		return nil, fmt.Errorf("test world: %w", err)
	}
	if err := w.startControlPlane(opts); err != nil {
		return nil, err
	}
	w.Artifacts, err = StartArtifactServer(filepath.Join(dir, "artifacts"))
	if err != nil {
		return nil, err
	}
	if opts.NoController {
		return w, nil
	}
	if w.Controller, err = w.newController(opts); err != nil {
		return nil, err
	}
	if err := w.Controller.Start(ctx); err != nil {
		return nil, err
	}
	if opts.Helm {
		if w.HelmController, err = w.newHelmController(opts); err != nil {
			return nil, err
		}
		if err := w.HelmController.Start(ctx); err != nil {
			return nil, err
		}
	}
	if opts.FluxOperator {
		if w.FluxOperator, err = w.newFluxOperator(opts); err != nil {
			return nil, err
		}
		// The operator keeps its entitlement Secret in its runtime
		// namespace (RUNTIME_NAMESPACE, flux-system) and exits at start
		// when that namespace is missing.
		if err := w.CreateNamespace(ctx, "flux-system"); err != nil {
			return nil, fmt.Errorf("flux-operator: %w", err)
		}
		if err := w.FluxOperator.Start(ctx); err != nil {
			return nil, fmt.Errorf("%w (log: %s)", err, tail(w.FluxOperator.Log(), 20))
		}
	}
	return w, nil
}

// newController returns the kustomize-controller opts name, not started,
// logging into the world's controller directory.
func (w *World) newController(opts Options) (*Controller, error) {
	binary := filepath.Join(w.Assets, orDefault(opts.ControllerBinary, "kustomize-controller"))
	if _, err := os.Stat(binary); err != nil {
		return nil, fmt.Errorf("test world: %s missing (scripts/test.sh builds the release matrix; run it, or EXTRA_KUSTOMIZE_CONTROLLER_VERSIONS=... scripts/testenv.sh): %w", filepath.Base(binary), err)
	}
	return &Controller{
		Binary:     binary,
		Kubeconfig: w.Kubeconfig,
		Dir:        filepath.Join(w.Dir, "controller"),
		Args:       slices.Clone(opts.ControllerArgs),
		TempDir:    opts.ControllerTempDir,
	}, nil
}

func (w *World) startControlPlane(opts Options) error {
	start := time.Now()
	crdDirs := []string{filepath.Join(w.Assets, "crds")}
	if opts.Helm {
		if err := checkHelmAssets(w.Assets); err != nil {
			return err
		}
		crdDirs = append(crdDirs, filepath.Join(w.Assets, helmCRDsDir))
	}
	if opts.FluxOperator {
		dir, err := w.fluxOperatorCRDs()
		if err != nil {
			return err
		}
		crdDirs = append(crdDirs, dir)
	}
	w.Env = &envtest.Environment{
		BinaryAssetsDirectory:    w.Assets,
		CRDDirectoryPaths:        crdDirs,
		ErrorIfCRDPathMissing:    true,
		ControlPlaneStartTimeout: 90 * time.Second,
		ControlPlaneStopTimeout:  30 * time.Second,
	}
	etcd := &envtest.Etcd{}
	w.Env.ControlPlane.Etcd = etcd
	etcd.DataDir = filepath.Join(w.Dir, "etcd")
	api := w.Env.ControlPlane.GetAPIServer()
	api.CertDir = filepath.Join(w.Dir, "apiserver")
	for _, d := range []string{etcd.DataDir, api.CertDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return fmt.Errorf("test world: %w", err)
		}
	}
	// The first kube-apiserver drains as every restarted one does (see
	// StartAPIServer): a fault test that stops it sees the same server.
	flags := append(append([]string{"--shutdown-send-retry-after=true"}, leanAPIServer(opts.PriorityAndFairness)...), opts.APIServerFlags...)
	if opts.APIAudit {
		audit, err := w.auditFlags()
		if err != nil {
			return err
		}
		flags = append(flags, audit...)
	}
	for _, f := range flags {
		name, value, ok := strings.Cut(strings.TrimPrefix(f, "--"), "=")
		if !ok || name == "" {
			return fmt.Errorf("kube-apiserver flag %q: want --name=value", f)
		}
		api.Configure().Set(name, value)
	}
	if _, err := w.Env.Start(); err != nil {
		return fmt.Errorf("test world: control plane did not start: %w", err)
	}
	w.StartupTime = time.Since(start)
	user, err := w.Env.AddUser(envtest.User{Name: "standup-admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return fmt.Errorf("test world: admin user: %w", err)
	}
	kubeconfig, err := user.KubeConfig()
	if err != nil {
		return fmt.Errorf("test world: admin kubeconfig: %w", err)
	}
	w.Kubeconfig = filepath.Join(w.Dir, "kubeconfig")
	if err := os.WriteFile(w.Kubeconfig, kubeconfig, 0o600); err != nil {
		return fmt.Errorf("test world: %w", err)
	}
	w.Config = user.Config()
	w.Config.QPS, w.Config.Burst = 200, 400
	scheme, err := Scheme()
	if err != nil {
		return err
	}
	if w.Client, err = client.New(w.Config, client.Options{Scheme: scheme}); err != nil {
		return fmt.Errorf("test world: client: %w", err)
	}
	if w.Dynamic, err = dynamic.NewForConfig(w.Config); err != nil {
		return fmt.Errorf("test world: dynamic client: %w", err)
	}
	return nil
}

// Stop tears the world down: controller, operators, artifact server, control
// plane, and the temporary directory. It is safe to call more than once.
func (w *World) Stop() {
	if w == nil {
		return
	}
	w.cancel()
	if w.Controller != nil {
		w.Controller.Stop()
	}
	if w.HelmController != nil {
		w.HelmController.Stop()
	}
	if w.FluxOperator != nil {
		w.FluxOperator.Stop()
	}
	if w.Artifacts != nil {
		w.Artifacts.Close()
	}
	if w.Env != nil {
		_ = w.Env.Stop()
	}
	if os.Getenv("STANDUP_KEEP_WORLD") == "" {
		_ = os.RemoveAll(w.Dir)
	}
}

// Context is cancelled when the world stops or, in a shared world, when the
// test holding it ends; background helpers (operators, proxies, the Delay
// controller) use it.
func (w *World) Context() context.Context {
	w.scopeMu.Lock()
	defer w.scopeMu.Unlock()
	if w.scope != nil {
		return w.scope
	}
	return w.ctx
}

// CreateNamespace creates a namespace, tolerating one that already exists.
func (w *World) CreateNamespace(ctx context.Context, name string) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := w.Client.Create(ctx, ns); err != nil && !isAlreadyExists(err) {
		return fmt.Errorf("Namespace/%s create failed: %w", name, err)
	}
	return nil
}

// leanAPIServer is kube-apiserver's configuration for a test world: the
// API groups that Flux, its controllers, standup and the test operators
// use (core, apps, RBAC, CRDs, leases, events, and the groups
// kube-apiserver's own admission and bootstrap controllers watch), without
// batch, autoscaling, policy, certificates, flow control (API priority and
// fairness off unless apf: a test world's few clients need no queues) or
// dynamic resource allocation. Each start serves and publishes fewer APIs:
// about a second less of CPU and of wall time per start, and the suite
// starts kube-apiserver some forty-five times. A test that needs another
// group gets them all back with APIServerFlags "--runtime-config=api/all=true".
func leanAPIServer(apf bool) []string {
	groups := []string{"api/v1", "apiregistration.k8s.io/v1", "apiextensions.k8s.io/v1", "admissionregistration.k8s.io/v1",
		"apps/v1", "authentication.k8s.io/v1", "authorization.k8s.io/v1", "rbac.authorization.k8s.io/v1",
		"coordination.k8s.io/v1", "events.k8s.io/v1", "discovery.k8s.io/v1", "networking.k8s.io/v1",
		"node.k8s.io/v1", "scheduling.k8s.io/v1", "storage.k8s.io/v1"}
	if apf {
		groups = append(groups, "flowcontrol.apiserver.k8s.io/v1")
	}
	return []string{fmt.Sprintf("--enable-priority-and-fairness=%v", apf), "--runtime-config=api/all=false," + strings.Join(groups, "=true,") + "=true"}
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

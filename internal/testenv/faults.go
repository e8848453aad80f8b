package testenv

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Faults a World can inject, each a real event of a production control
// plane rather than a mock:
//
//   - StopAPIServer / StartAPIServer / RestartAPIServer: kube-apiserver goes
//     away (SIGTERM, as on a rolling control-plane upgrade) and comes back on
//     the same etcd, port and certificates, so every kubeconfig stays valid;
//     KillAPIServer is the crash (SIGKILL, connections reset mid-request).
//   - KillController / RestartController: kustomize-controller is killed
//     with SIGKILL (an OOM kill, a lost node) and started again.
//   - Proxy and ExpireWatches: a load balancer that cuts long-lived
//     connections while etcd compacts, so resumed watches get 410 Gone.
//   - UninstallFlux: a cluster without the Flux CRDs.
//   - EnableAPIAudit / APIAuditLog: kube-apiserver's own record of every request,
//     the witness that a client wrote nothing it should not have.

// fluxGroupSuffix is the API group suffix of every Flux CRD.
const fluxGroupSuffix = ".toolkit.fluxcd.io"

// stopGrace is how long StopAPIServer lets kube-apiserver drain before
// killing it.
const stopGrace = 10 * time.Second

// StopAPIServer stops kube-apiserver gracefully (SIGTERM); etcd keeps
// running. A server that has not drained within the control plane's stop
// timeout is killed, as a kubelet kills a static pod after its grace period.
// It returns once the port refuses connections.
func (w *World) StopAPIServer() error {
	api := w.Env.ControlPlane.GetAPIServer()
	err := api.Stop()
	if err != nil && !strings.Contains(err.Error(), "timeout waiting for process") {
		return fmt.Errorf("kube-apiserver stop failed: %w", err)
	}
	addr := api.SecureServing.ListenAddr.HostPort()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return nil
		}
		conn.Close()
	}
	return fmt.Errorf("kube-apiserver still listens on %s after stop", addr)
}

// StartAPIServer starts kube-apiserver again on the same etcd, the same
// secure port and the same serving and client CA certificates (envtest
// keeps all three when CertDir is set, as the world sets it), so the
// world's kubeconfig and clients keep working. flags ("--name=value") are
// set on the API server's command line from then on. It returns once
// /readyz answers.
//
// The restarted server drains as one behind a load balancer does
// (--shutdown-send-retry-after=true): on its next stop it answers new
// requests 429 with Retry-After while in-flight ones finish, then closes
// watches within 2 s instead of letting them hold it up to a minute.
func (w *World) StartAPIServer(ctx context.Context, flags ...string) error {
	api := w.Env.ControlPlane.GetAPIServer()
	// A server started here drains in about 2 s; only the world's first
	// one may hold watches open for a minute (and is killed at the world's
	// stop timeout). envtest copies this into the new process's state.
	api.StopTimeout = stopGrace
	flags = append([]string{"--shutdown-send-retry-after=true"}, flags...)
	for _, f := range flags {
		name, value, ok := strings.Cut(strings.TrimPrefix(f, "--"), "=")
		if !ok || name == "" {
			return fmt.Errorf("kube-apiserver flag %q: want --name=value", f)
		}
		api.Configure().Set(name, value)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := api.Start(); err != nil {
		return fmt.Errorf("kube-apiserver restart failed: %w", err)
	}
	return w.waitReady(ctx)
}

// KillAPIServer kills kube-apiserver with SIGKILL, as a crash or the loss
// of its node would: no drain, every connection reset. Start it again with
// StartAPIServer.
func (w *World) KillAPIServer() error {
	api := w.Env.ControlPlane.GetAPIServer()
	pid, err := findProcess("kube-apiserver", "--cert-dir="+api.CertDir)
	if err != nil {
		return err
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		return fmt.Errorf("kube-apiserver (pid %d) kill failed: %w", pid, err)
	}
	return w.StopAPIServer() // reaps the process and waits for the port to close
}

// findProcess returns the pid of the process whose command line holds
// binary and arg, read from /proc.
func findProcess(binary, arg string) (int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, fmt.Errorf("%s: %w", binary, err)
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(string(cmdline), "\x00")
		if strings.HasSuffix(args[0], binary) && slices.Contains(args, arg) {
			return pid, nil
		}
	}
	return 0, fmt.Errorf("%s with %s: no such process", binary, arg)
}

// RestartAPIServer stops kube-apiserver and starts it again; see
// StartAPIServer for flags.
func (w *World) RestartAPIServer(ctx context.Context, flags ...string) error {
	if err := w.StopAPIServer(); err != nil {
		return err
	}
	return w.StartAPIServer(ctx, flags...)
}

// waitReady polls /readyz with the world's admin credentials until it
// answers 200 or ctx ends.
func (w *World) waitReady(ctx context.Context) error {
	hc, err := rest.HTTPClientFor(w.Config)
	if err != nil {
		return fmt.Errorf("kube-apiserver readiness: %w", err)
	}
	defer hc.CloseIdleConnections()
	last := ""
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(w.Config.Host, "/")+"/readyz", nil)
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = fmt.Sprintf("%s: %s", resp.Status, body)
		} else {
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("kube-apiserver not ready after restart (last answer: %s): %w", last, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// KillController kills kustomize-controller with SIGKILL, as an OOM kill
// or the loss of its node would.
func (w *World) KillController() {
	if w.Controller != nil {
		w.Controller.Kill()
	}
}

// RestartController starts kustomize-controller again after
// KillController, and waits until it is healthy.
func (w *World) RestartController(ctx context.Context) error {
	if w.Controller == nil {
		return fmt.Errorf("kustomize-controller: this world runs without one")
	}
	return w.Controller.Start(ctx)
}

// CompactEtcd compacts etcd's history up to its current revision, as
// kube-apiserver's own compactor does every 5 minutes
// (--etcd-compaction-interval). It returns that revision. A watch that
// kube-apiserver serves from etcd (not from its watch cache) and that
// resumes from an older resourceVersion then gets 410 Gone.
func (w *World) CompactEtcd(ctx context.Context) (int64, error) {
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:   []string{w.Env.ControlPlane.Etcd.URL.String()},
		DialTimeout: 5 * time.Second,
		Context:     ctx,
		Logger:      zap.NewNop(),
	})
	if err != nil {
		return 0, fmt.Errorf("etcd client: %w", err)
	}
	defer cli.Close()
	resp, err := cli.Get(ctx, "/standup-testenv/revision-probe")
	if err != nil {
		return 0, fmt.Errorf("etcd revision: %w", err)
	}
	rev := resp.Header.Revision
	if _, err := cli.Compact(ctx, rev, clientv3.WithCompactPhysical()); err != nil {
		return 0, fmt.Errorf("etcd compaction at revision %d failed: %w", rev, err)
	}
	return rev, nil
}

// ExpireWatches makes every watch that passes through p expire, the way a
// client's watches expire when its load balancer drops it for longer than
// etcd keeps history: it cuts p's connections and holds new ones, moves
// etcd's revision on with two writes, compacts etcd, and lets connections
// through again. A client resuming a watch from the resourceVersion it had
// reached is answered 410 Gone ("too old resource version") and must
// re-list. kube-apiserver must run with --watch-cache=false; otherwise it
// serves the resumed watch from its in-memory cache and nothing expires.
// It returns the compaction revision.
func (w *World) ExpireWatches(ctx context.Context, p *Proxy) (int64, error) {
	p.Block()
	defer p.Unblock()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: UniqueName("standup-watch-expiry")}}
	if err := w.Client.Create(ctx, cm); err != nil {
		return 0, fmt.Errorf("ConfigMap/default/%s create failed: %w", cm.Name, err)
	}
	cm.Data = map[string]string{"bumped": "true"}
	if err := w.Client.Update(ctx, cm); err != nil {
		return 0, fmt.Errorf("ConfigMap/default/%s update failed: %w", cm.Name, err)
	}
	return w.CompactEtcd(ctx)
}

// UninstallFlux makes the world a cluster without Flux: it stops
// kustomize-controller and deletes every CRD of a *.toolkit.fluxcd.io
// group, then waits until discovery no longer serves those groups.
//
// kube-apiserver now and then leaves a CRD deleted right after start-up
// terminating for good, its customresourcecleanup finalizer never run; a
// Flux CRD still terminating after cleanupGrace has its finalizer removed
// (the world holds no Flux objects once the controller is stopped).
func (w *World) UninstallFlux(ctx context.Context) error {
	if w.Controller != nil {
		w.Controller.Stop()
	}
	crds, err := w.fluxCRDs(ctx)
	if err != nil {
		return err
	}
	for _, crd := range crds {
		if err := w.Client.Delete(ctx, crd); err != nil && !isNotFound(err) {
			return fmt.Errorf("CustomResourceDefinition/%s delete failed: %w", crd.Name, err)
		}
	}
	dc, err := discovery.NewDiscoveryClientForConfig(w.Config)
	if err != nil {
		return fmt.Errorf("uninstall Flux: %w", err)
	}
	for {
		served, err := servesFlux(dc)
		if err == nil && len(served) == 0 {
			return nil
		}
		if err := w.unstickFluxCRDs(ctx); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("uninstall Flux: the API server still serves %v (%v; CRDs left: %s): %w", served, err, w.fluxCRDsLeft(), ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// cleanupGrace is how long UninstallFlux lets a Flux CRD terminate.
const cleanupGrace = 10 * time.Second

func (w *World) fluxCRDs(ctx context.Context) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	list := &apiextensionsv1.CustomResourceDefinitionList{}
	if err := w.Client.List(ctx, list); err != nil {
		return nil, fmt.Errorf("uninstall Flux: list CRDs: %w", err)
	}
	var out []*apiextensionsv1.CustomResourceDefinition
	for i := range list.Items {
		if strings.HasSuffix(list.Items[i].Spec.Group, fluxGroupSuffix) {
			out = append(out, &list.Items[i])
		}
	}
	return out, nil
}

// unstickFluxCRDs removes the finalizers of Flux CRDs terminating for
// longer than cleanupGrace.
func (w *World) unstickFluxCRDs(ctx context.Context) error {
	crds, err := w.fluxCRDs(ctx)
	if err != nil {
		return err
	}
	for _, crd := range crds {
		if crd.DeletionTimestamp == nil || time.Since(crd.DeletionTimestamp.Time) < cleanupGrace || len(crd.Finalizers) == 0 {
			continue
		}
		patch := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`))
		if err := w.Client.Patch(ctx, crd, patch); err != nil && !isNotFound(err) {
			return fmt.Errorf("CustomResourceDefinition/%s: remove finalizers: %w", crd.Name, err)
		}
	}
	return nil
}

// fluxCRDsLeft describes the Flux CRDs that still exist, for errors.
func (w *World) fluxCRDsLeft() string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	list := &apiextensionsv1.CustomResourceDefinitionList{}
	if err := w.Client.List(ctx, list); err != nil {
		return err.Error()
	}
	var left []string
	for _, c := range list.Items {
		if strings.HasSuffix(c.Spec.Group, fluxGroupSuffix) {
			left = append(left, fmt.Sprintf("%s (deleting since %v, finalizers %v)", c.Name, c.DeletionTimestamp, c.Finalizers))
		}
	}
	return fmt.Sprintf("%d %v", len(left), left)
}

// servesFlux returns the Flux groups discovery still lists.
func servesFlux(dc discovery.DiscoveryInterface) ([]string, error) {
	groups, err := dc.ServerGroups()
	if err != nil {
		return nil, err
	}
	var served []string
	for _, g := range groups.Groups {
		if strings.HasSuffix(g.Name, fluxGroupSuffix) {
			served = append(served, g.Name)
		}
	}
	return served, nil
}

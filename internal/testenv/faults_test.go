package testenv

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func faultCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func configMap(name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}, Data: map[string]string{"k": "v"}}
}

// clientsetFor builds a clientset from a kubeconfig file, as a CLI would.
func clientsetFor(t *testing.T, kubeconfig string) *kubernetes.Clientset {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func TestFaultAPIServerRestartKeepsKubeconfigAndData(t *testing.T) {
	w := New(t, Options{NoController: true})
	ctx := faultCtx(t)
	if err := w.Client.Create(ctx, configMap("before-restart")); err != nil {
		t.Fatal(err)
	}
	host := w.Config.Host
	if err := w.StopAPIServer(); err != nil {
		t.Fatal(err)
	}
	if err := w.Client.Get(ctx, client.ObjectKey{Namespace: "default", Name: "before-restart"}, &corev1.ConfigMap{}); err == nil {
		t.Fatal("the API server still answers after StopAPIServer")
	}
	start := time.Now()
	if err := w.StartAPIServer(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("kube-apiserver back in %s", time.Since(start).Round(time.Millisecond))
	if got := w.Env.ControlPlane.GetAPIServer().SecureServing.URL("https", "").Host; !strings.Contains(host, got) {
		t.Errorf("API server moved from %s to %s", host, got)
	}
	// The clients made before the restart, and the kubeconfig file, still work: same port, same CA, same client certs.
	if err := w.Client.Get(ctx, client.ObjectKey{Namespace: "default", Name: "before-restart"}, &corev1.ConfigMap{}); err != nil {
		t.Fatalf("old client after restart: %v", err)
	}
	if _, err := clientsetFor(t, w.Kubeconfig).CoreV1().ConfigMaps("default").Get(ctx, "before-restart", metav1.GetOptions{}); err != nil {
		t.Fatalf("kubeconfig after restart: %v", err)
	}
}

func TestFaultExpireWatchesAnswers410AndCutAloneDoesNot(t *testing.T) {
	w := New(t, Options{NoController: true})
	ctx := faultCtx(t)
	if err := w.RestartAPIServer(ctx, "--watch-cache=false"); err != nil {
		t.Fatal(err)
	}
	p, err := w.StartProxy()
	if err != nil {
		t.Fatal(err)
	}
	cms := clientsetFor(t, p.Kubeconfig).CoreV1().ConfigMaps("default")
	list, err := cms.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rv := list.ResourceVersion

	// A cut alone: the watch breaks, and resuming from rv works (etcd still has the history).
	wi, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: rv})
	if err != nil {
		t.Fatal(err)
	}
	p.Cut()
	drainUntilClosed(t, wi)
	touch := func(ctx context.Context) error {
		_, err := cms.Create(ctx, configMap(UniqueName("touch")), metav1.CreateOptions{})
		return err
	}
	if err := resumeWatch(ctx, cms.Watch, rv, touch); err != nil {
		t.Fatalf("watch resumed after a cut alone: %v, want it to work", err)
	}

	// An expiry: the watch breaks, etcd compacts past rv, and the resumed watch is answered 410.
	wi, err = cms.Watch(ctx, metav1.ListOptions{ResourceVersion: rv})
	if err != nil {
		t.Fatal(err)
	}
	compacted, err := w.ExpireWatches(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	drainUntilClosed(t, wi)
	err = resumeWatch(ctx, cms.Watch, rv, touch)
	if !apierrors.IsResourceExpired(err) && !apierrors.IsGone(err) {
		t.Fatalf("watch resumed from %s after compaction at %d: %v, want 410 Gone", rv, compacted, err)
	}
	t.Logf("resumed watch from %s after compaction at %d: %v", rv, compacted, err)
}

type watchFunc func(context.Context, metav1.ListOptions) (watch.Interface, error)

// resumeWatch opens a watch from rv and returns the error the server
// answers with: on the request, or as the first event. touch then writes
// an object the watch sees, so that the first event comes whether or not
// anything changed since rv: a watch the server resumed delivers an object
// (what changed since rv, or touch's), one it refuses delivers the error.
func resumeWatch(ctx context.Context, open watchFunc, rv string, touch func(context.Context) error) error {
	wi, err := open(ctx, metav1.ListOptions{ResourceVersion: rv})
	if err != nil {
		return err
	}
	defer wi.Stop()
	if err := touch(ctx); err != nil {
		return fmt.Errorf("touch after resuming the watch: %w", err)
	}
	select {
	case ev, ok := <-wi.ResultChan():
		switch {
		case !ok:
			return errors.New("the resumed watch closed without an event")
		case ev.Type == watch.Error:
			return apierrors.FromObject(ev.Object)
		}
		return nil
	case <-time.After(30 * time.Second):
		return errors.New("the resumed watch delivered nothing within 30s, not even the touch")
	}
}

func drainUntilClosed(t *testing.T, wi watch.Interface) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case _, ok := <-wi.ResultChan():
			if !ok {
				return
			}
		case <-timeout:
			t.Fatal("the proxy cut did not end the watch")
		}
	}
}

// TestFaultKillControllerStopsReconcilingUntilRestart kills the controller
// of a shared world: each test there runs a kustomize-controller of its own.
func TestFaultKillControllerStopsReconcilingUntilRestart(t *testing.T) {
	w := worlds.Get(t, Options{})
	ctx := faultCtx(t)
	if err := w.CreateNamespace(ctx, "flux-system"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Artifacts.Publish(ctx, w.Client, "flux-system", "flux-system", "testdata/seed"); err != nil {
		t.Fatal(err)
	}
	w.KillController()
	// Nothing is left of it to reconcile what is created next: no process
	// of its group, and nothing serving its health endpoint.
	eventually(t, 10*time.Second, "the killed controller is gone", w.Controller.gone)
	createAll(t, w, KS{Name: "operators", Path: "./operators"})
	if ks := readyOf(t, w, "operators"); apimeta.FindStatusCondition(ks.Status.Conditions, "Ready") != nil {
		t.Fatalf("a killed controller reconciled: %s", condition(ks))
	}
	if err := w.RestartController(ctx); err != nil {
		t.Fatal(err)
	}
	if w.Controller.Starts != 2 {
		t.Errorf("controller started %d times, want 2", w.Controller.Starts)
	}
	eventually(t, 60*time.Second, "operators becomes Ready after the restart", func() (bool, string) {
		ks := readyOf(t, w, "operators")
		return apimeta.IsStatusConditionTrue(ks.Status.Conditions, "Ready"), condition(ks)
	})
}

func TestFaultAuditLogRecordsWritesWithTheirBody(t *testing.T) {
	w := New(t, Options{NoController: true})
	ctx := faultCtx(t)
	if err := w.EnableAPIAudit(ctx); err != nil {
		t.Fatal(err)
	}
	cfg := rest.CopyConfig(w.Config)
	cfg.UserAgent = "fault-test"
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, configMap("audited"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := w.SyncAPIAudit(ctx); err != nil {
		t.Fatal(err)
	}
	events, err := w.APIAuditLog()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		if e.UserAgent == "fault-test" && e.Verb == "create" && e.ObjectRef != nil && e.ObjectRef.Resource == "configmaps" {
			if e.RequestObject == nil || !strings.Contains(string(e.RequestObject.Raw), `"audited"`) {
				t.Fatalf("create logged without its body: %+v", e)
			}
			if e.ResponseStatus == nil || e.ResponseStatus.Code != 201 {
				t.Fatalf("create logged with status %+v, want 201", e.ResponseStatus)
			}
			return
		}
	}
	t.Fatalf("the create is not in the audit log (%d events)", len(events))
}

func TestFaultUninstallFluxRemovesTheKustomizationAPI(t *testing.T) {
	w := New(t, Options{})
	ctx := faultCtx(t)
	if err := w.UninstallFlux(ctx); err != nil {
		t.Fatal(err)
	}
	scheme, err := Scheme()
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := client.New(w.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	err = fresh.List(ctx, &kustomizev1.KustomizationList{})
	if !apimeta.IsNoMatchError(err) {
		t.Fatalf("list Kustomizations after UninstallFlux: %v, want no match for kind", err)
	}
}

package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubestandup/standup/internal/testenv"
	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/wait"
)

// Issue 34, hub and spoke: the hub's kustomize-controller applies
// spoke-operators and spoke-config to the spoke through the kubeConfig
// Secret spoke-kubeconfig. spoke-config holds the seed's deadlock (the CDI
// CR and a StorageProfile in one pass), and the simulated cdi-operator
// runs on the spoke: the kind is missing on the spoke, and must be created
// there, never on the hub.

const (
	hubSpokeRepo   = "testdata/hubspoke"
	spokeSecret    = "spoke-kubeconfig"
	spokeConfigKS  = "spoke-config"
	hubSpokeConfig = deadlockRepo + "/standup.yaml" // runtimeCRDs: CDI makes StorageProfile
)

// hubSpoke is a hub (the shared world, with kustomize-controller), a spoke
// of its own, and the two Kustomizations of the hub that apply to it.
type hubSpoke struct {
	hub, spoke *testenv.World
	ns         string
}

// newHubSpoke starts the scene and waits until Flux alone has deadlocked
// spoke-config on the spoke's StorageProfile dry-run.
func newHubSpoke(t *testing.T) hubSpoke {
	t.Helper()
	ns := testenv.UniqueName("hub")
	hub := sharedWorld(t, testenv.Options{ControllerArgs: []string{"--requeue-dependency=2s"}}, ns)
	spoke := hub.NewSpoke(t, ns, spokeSecret)
	ctx := context.Background()
	sp, err := testenv.LoadCRD(seedBundle + "/" + storageCRD + ".yaml")
	if err != nil {
		t.Fatal(err)
	}
	spoke.StartOperator(&testenv.RuntimeCRDOperator{
		Trigger: schema.GroupVersionResource{Group: "cdi.kubevirt.io", Version: "v1beta1", Resource: "cdis"},
		CRDs:    []*apiextensionsv1.CustomResourceDefinition{sp}, Delay: 2 * time.Second,
	})
	if _, err := hub.Artifacts.Publish(ctx, hub.Client, ns, "repo", hubSpokeRepo); err != nil {
		t.Fatal(err)
	}
	create(t, hub,
		testenv.KS{Namespace: ns, Name: "spoke-operators", Path: "./spoke-operators", Wait: true, KubeConfigSecret: spokeSecret},
		testenv.KS{Namespace: ns, Name: spokeConfigKS, Path: "./spoke-config", KubeConfigSecret: spokeSecret,
			DependsOn: []meta.NamespacedObjectReference{testenv.Dep("", "spoke-operators")}, Interval: time.Hour})
	s := hubSpoke{hub: hub, spoke: spoke, ns: ns}
	s.stuck(t)
	return s
}

// stuck waits for spoke-config's dry-run to fail on StorageProfile.
func (s hubSpoke) stuck(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		ks := &kustomizev1Kustomization{}
		if err := s.hub.Client.Get(context.Background(), client.ObjectKey{Namespace: s.ns, Name: spokeConfigKS}, ks); err == nil {
			if c := readyCondition(ks); c != nil && strings.Contains(c.Message, `no matches for kind "StorageProfile"`) {
				return
			}
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Fatalf("%s never reached the spoke's deadlock under Flux alone:\n%s", spokeConfigKS, tailLines(s.hub.Controller.Log(), 30))
}

// crdOn reports whether the cluster of w holds the CRD name.
func crdOn(t *testing.T, w *testenv.World, name string) (*apiextensionsv1.CustomResourceDefinition, bool) {
	t.Helper()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	err := w.Client.Get(context.Background(), client.ObjectKey{Name: name}, crd)
	switch {
	case apierrors.IsNotFound(err):
		return nil, false
	case err != nil:
		t.Fatal(err)
	}
	return crd, true
}

// TestResumeRepairsASpokeDeadlockOnTheSpoke: resume on the hub reads the
// kubeConfig Secret, proves the deadlock with the spoke's facts (no CDI
// object there), creates StorageProfile's CRD on the spoke from the
// spoke's bundle, naming the cluster, and walks spoke-config to Ready. The
// CRD exists on the spoke, and not on the hub.
func TestResumeRepairsASpokeDeadlockOnTheSpoke(t *testing.T) {
	s := newHubSpoke(t)
	secret := s.ns + "/" + spokeSecret
	res := runCLI(t, s.hub, "resume", "--spoke-crds", spokeSecret+"="+seedBundle, "--config", hubSpokeConfig, "-o", "json")
	if res.Code != ExitOK {
		t.Fatalf("exit %d: %v\n%s", res.Code, res.Err, tailLines(res.Stdout, 40))
	}
	if strings.Contains(res.Stderr, "falling back") {
		t.Errorf("fell back to the hub's view although the Secret was readable:\n%s", res.Stderr)
	}
	evs := events(t, res.Stdout)
	var proof *wait.Proof
	var applied []wait.Event
	for _, e := range evs {
		switch {
		case e.Type == wait.EventDiagnosis && e.Proof != nil:
			proof = e.Proof
			if e.Node.Name != spokeConfigKS {
				t.Errorf("deadlock acted on for %s, want %s", e.Node, spokeConfigKS)
			}
		case e.Type == wait.EventAction && e.Action == string(wait.ActionPreApplyCRDs):
			applied = append(applied, e)
		}
	}
	if proof == nil || proof.Kind != wait.ProofCertain || !strings.Contains(proof.Reason, "on cluster "+spokeSecret+" (Secret "+secret+")") {
		t.Fatalf("proof %+v: want a certain proof read on the spoke", proof)
	}
	if len(applied) != 1 || applied[0].Spoke != secret || !strings.Contains(applied[0].Message, "on cluster "+spokeSecret) ||
		len(applied[0].Applied) != 1 || applied[0].Applied[0] != storageCRD {
		t.Fatalf("pre-apply actions %+v: want one creating %s on the spoke %s, named in its message", applied, storageCRD, secret)
	}
	crd, ok := crdOn(t, s.spoke, storageCRD)
	if !ok {
		t.Fatalf("%s is not on the spoke", storageCRD)
	}
	if got := crd.Annotations[crds.PreAppliedForAnnotation]; got != "Kustomization/"+s.ns+"/"+spokeConfigKS {
		t.Errorf("on the spoke, %s = %q", crds.PreAppliedForAnnotation, got)
	}
	if _, onHub := crdOn(t, s.hub, storageCRD); onHub {
		t.Errorf("%s was created on the hub", storageCRD)
	}
	if ks := getKS(t, s.hub, s.ns, spokeConfigKS); !isReady(ks) {
		t.Errorf("%s not Ready: %v", spokeConfigKS, ks.Status.Conditions)
	}
	sp := &unstructured.Unstructured{}
	sp.SetGroupVersionKind(schema.GroupVersionKind{Group: "cdi.kubevirt.io", Version: "v1beta1", Kind: "StorageProfile"})
	if err := s.spoke.Client.Get(context.Background(), client.ObjectKey{Name: "longhorn"}, sp); err != nil {
		t.Errorf("StorageProfile/longhorn not applied on the spoke: %v", err)
	}
}

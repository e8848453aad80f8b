package render

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubestandup/standup/internal/testenv"
)

func TestZZSmoke(t *testing.T) {
	example := os.Getenv("SMOKE_EXAMPLE")
	if example == "" {
		t.Skip()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	w, err := testenv.Start(ctx, testenv.Options{ControllerArgs: []string{"--requeue-dependency=3s"}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if t.Failed() {
			log := w.Controller.Log()
			if len(log) > 6000 {
				log = log[len(log)-6000:]
			}
			fmt.Println(log)
		}
		w.Stop()
	}()
	c := w.Client
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "flux-system"}}); err != nil {
		t.Fatal(err)
	}
	dir, _ := filepath.Abs(filepath.Join("..", "..", "examples", example))
	if _, err := w.Artifacts.Publish(ctx, c, "flux-system", "flux-system", dir); err != nil {
		t.Fatal(err)
	}
	sp, err := testenv.LoadCRD(filepath.Join("..", "..", "examples", "homelab-deadlock", "bootstrap", "crds", "storageprofiles.cdi.kubevirt.io.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dv := sp.DeepCopy()
	dv.Name = "datavolumes.cdi.kubevirt.io"
	dv.Spec.Scope = apiextensionsv1.NamespaceScoped
	dv.Spec.Names = apiextensionsv1.CustomResourceDefinitionNames{Kind: "DataVolume", ListKind: "DataVolumeList", Plural: "datavolumes", Singular: "datavolume"}
	op := &testenv.RuntimeCRDOperator{
		Trigger: schema.GroupVersionResource{Group: "cdi.kubevirt.io", Version: "v1beta1", Resource: "cdis"},
		CRDs:    []*apiextensionsv1.CustomResourceDefinition{sp, dv},
		Delay:   time.Second,
	}
	w.StartOperator(op)
	res, err := Load(ctx, Options{Path: filepath.Join(dir, "clusters", "prod")})
	if err != nil {
		t.Fatal(err)
	}
	root := res.Definitions[ksID("flux-system", "flux-system")].Object.DeepCopy()
	if err := c.Create(ctx, root); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for {
		var list kustomizev1.KustomizationList
		if err := c.List(ctx, &list); err != nil {
			t.Fatal(err)
		}
		ready, total := 0, len(list.Items)
		var lines []string
		for _, ks := range list.Items {
			cond := apimeta.FindStatusCondition(ks.Status.Conditions, meta.ReadyCondition)
			if cond != nil && cond.Status == metav1.ConditionTrue {
				ready++
				continue
			}
			msg := "no status"
			if cond != nil {
				msg = cond.Reason + ": " + strings.SplitN(cond.Message, "\n", 2)[0]
			}
			lines = append(lines, ks.Namespace+"/"+ks.Name+" "+msg)
			patch := client.MergeFrom(ks.DeepCopy())
			if ks.Annotations == nil {
				ks.Annotations = map[string]string{}
			}
			ks.Annotations[meta.ReconcileRequestAnnotation] = time.Now().Format(time.RFC3339Nano)
			_ = c.Patch(ctx, &ks, patch)
		}
		fmt.Printf("%5.1fs ready %d/%d %v\n", time.Since(start).Seconds(), ready, total, lines)
		if total == len(res.Objects) && ready == total {
			return
		}
		if time.Since(start) > 150*time.Second {
			t.Fatalf("not converged")
		}
		time.Sleep(5 * time.Second)
	}
}

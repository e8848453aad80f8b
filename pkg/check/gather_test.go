package check

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

// recorder is a fake cluster that remembers which kinds were listed and
// which objects were read, and can refuse to list Deployments as RBAC would.
type recorder struct {
	mu                sync.Mutex
	lists, gets       []string
	forbidDeployments bool
}

func (rec *recorder) client(t *testing.T, objs ...client.Object) client.Reader {
	t.Helper()
	scheme, err := flux.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	return fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).WithInterceptorFuncs(interceptor.Funcs{
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			gvk, err := apiutil.GVKForObject(list, c.Scheme())
			if err != nil {
				return err
			}
			rec.mu.Lock()
			rec.lists = append(rec.lists, gvk.Kind)
			rec.mu.Unlock()
			if rec.forbidDeployments && gvk.Kind == "DeploymentList" {
				return apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: "deployments"}, "",
					errorString(`User "viewer" cannot list resource "deployments" in API group "apps" in the namespace "flux-system"`))
			}
			return c.List(ctx, list, opts...)
		},
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			gvk, err := apiutil.GVKForObject(obj, c.Scheme())
			if err != nil {
				return err
			}
			rec.mu.Lock()
			rec.gets = append(rec.gets, tiers.ID{Kind: gvk.Kind, Namespace: key.Namespace, Name: key.Name}.String())
			rec.mu.Unlock()
			return c.Get(ctx, key, obj, opts...)
		},
	}).Build()
}

type errorString string

func (e errorString) Error() string { return string(e) }

func kustomization(name, source string) *kustomizev1.Kustomization {
	return &kustomizev1.Kustomization{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "flux-system", Generation: 1},
		Spec: kustomizev1.KustomizationSpec{
			SourceRef: kustomizev1.CrossNamespaceSourceReference{Kind: sourcev1.GitRepositoryKind, Name: source},
		},
		Status: kustomizev1.KustomizationStatus{
			ObservedGeneration: 1, LastAppliedRevision: revNew,
			Conditions: []metav1.Condition{{Type: meta.ReadyCondition, Status: metav1.ConditionTrue, Reason: "ReconciliationSucceeded"}},
		},
	}
}

func gitRepository(name, revision string) *sourcev1.GitRepository {
	return &sourcev1.GitRepository{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "flux-system"},
		Status:     sourcev1.GitRepositoryStatus{Artifact: &meta.Artifact{Revision: revision}},
	}
}

func fluxDeployment(name, namespace string, labels map[string]string) *appsv1.Deployment {
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: labels}}
}

func TestGather(t *testing.T) {
	badBundle := t.TempDir()
	if err := os.WriteFile(filepath.Join(badBundle, "cm.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fluxLabel := map[string]string{flux.PartOfLabel: flux.PartOfValue}
	tests := []struct {
		name              string
		objs              []client.Object
		opts              Options
		forbidDeployments bool
		wantLists         []string // kinds listed, in order
		wantGets          []string // objects read
		wantSources       map[tiers.ID]SourceRevision
		wantControllers   []string
		wantStatus        map[string]Status
		wantIn            map[string]string // check name -> text it must say
	}{
		{
			name:        "Flux not installed: no Kustomization CRD, so no Kustomization list",
			objs:        []client.Object{crdOf("storageprofiles.cdi.kubevirt.io", "v1beta1", true)},
			opts:        Options{Ready: []string{"platform"}},
			wantLists:   []string{"CustomResourceDefinitionList", "DeploymentList"},
			wantSources: map[tiers.ID]SourceRevision{},
			wantStatus:  map[string]Status{"flux": Fail, "controllers": Skip, "crds": Pass, "bundle": Skip, "ready": Skip},
		},
		{
			name: "controllers list forbidden: a failed check, not an error",
			objs: []client.Object{crdOf(flux.KustomizationCRD, "v1", true), kustomization("platform", "flux-system"),
				gitRepository("flux-system", revNew)},
			forbidDeployments: true,
			wantLists:         []string{"CustomResourceDefinitionList", "DeploymentList", "KustomizationList"},
			wantSources:       map[tiers.ID]SourceRevision{},
			wantStatus:        map[string]Status{"flux": Pass, "controllers": Fail, "kustomizations": Pass, "ready": Skip},
			wantIn:            map[string]string{"controllers": `forbidden: standup needs "list" on deployments.apps`},
		},
		{
			name: "--ready reads the sources of the named Kustomizations only",
			objs: []client.Object{crdOf(flux.KustomizationCRD, "v1", true),
				kustomization("platform", "platform-repo"), kustomization("platform-config", "config-repo"), kustomization("apps", "config-repo"),
				gitRepository("platform-repo", revOld), gitRepository("config-repo", revNew),
				fluxDeployment("kustomize-controller", "flux-system", fluxLabel),
				fluxDeployment("not-flux", "flux-system", nil), fluxDeployment("kustomize-controller", "elsewhere", fluxLabel)},
			opts:            Options{Namespace: "flux-system", Ready: []string{"platform-config", "flux-system/apps"}},
			wantLists:       []string{"CustomResourceDefinitionList", "DeploymentList", "KustomizationList"},
			wantGets:        []string{"GitRepository/flux-system/config-repo"},
			wantSources:     map[tiers.ID]SourceRevision{{Kind: "GitRepository", Namespace: "flux-system", Name: "config-repo"}: {Revision: revNew}},
			wantControllers: []string{"kustomize-controller"},
			wantStatus:      map[string]Status{"flux": Pass, "kustomizations": Pass, "ready": Pass},
			wantIn:          map[string]string{"ready": "2 of 2 named Ready"},
		},
		{
			name:        "an invalid bundle is a failed check, not an error",
			objs:        []client.Object{crdOf(flux.KustomizationCRD, "v1", true)},
			opts:        Options{BundleDir: badBundle},
			wantLists:   []string{"CustomResourceDefinitionList", "DeploymentList", "KustomizationList"},
			wantSources: map[tiers.ID]SourceRevision{},
			wantStatus:  map[string]Status{"bundle": Fail},
			wantIn:      map[string]string{"bundle": "cm.yaml: document 1: kind ConfigMap is not an apiextensions.k8s.io/v1 CustomResourceDefinition"},
		},
		{
			name:        "a valid bundle is loaded",
			objs:        []client.Object{crdOf(flux.KustomizationCRD, "v1", true)},
			opts:        Options{BundleDir: seedBundle},
			wantLists:   []string{"CustomResourceDefinitionList", "DeploymentList", "KustomizationList"},
			wantSources: map[tiers.ID]SourceRevision{},
			wantStatus:  map[string]Status{"bundle": Pass},
			wantIn:      map[string]string{"bundle": "holds 1 CRD, valid (storageprofiles.cdi.kubevirt.io)"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{forbidDeployments: tt.forbidDeployments}
			f, err := Gather(context.Background(), rec.client(t, tt.objs...), tt.opts)
			if err != nil {
				t.Fatalf("Gather: %v", err)
			}
			if !slices.Equal(rec.lists, tt.wantLists) {
				t.Errorf("listed %v, want %v", rec.lists, tt.wantLists)
			}
			if !slices.Equal(rec.gets, tt.wantGets) {
				t.Errorf("read %v, want %v", rec.gets, tt.wantGets)
			}
			if len(f.Sources) != len(tt.wantSources) {
				t.Errorf("sources %v, want %v", f.Sources, tt.wantSources)
			}
			for id, want := range tt.wantSources {
				if got, ok := f.Sources[id]; !ok || got.Revision != want.Revision || got.Err != nil {
					t.Errorf("source %s: %+v, want %+v", id, got, want)
				}
			}
			var controllers []string
			for _, d := range f.Controllers {
				controllers = append(controllers, d.GetName())
			}
			if !slices.Equal(controllers, tt.wantControllers) {
				t.Errorf("controllers %v, want %v", controllers, tt.wantControllers)
			}
			if tt.forbidDeployments != (f.ControllersErr != nil) {
				t.Errorf("ControllersErr %v, want one: %t", f.ControllersErr, tt.forbidDeployments)
			}
			r := Evaluate(f, tt.opts.Ready)
			byName := map[string]Result{}
			for _, c := range r.Checks {
				byName[c.Name] = c
			}
			for name, st := range tt.wantStatus {
				if byName[name].Status != st {
					t.Errorf("%s: status %s, want %s (%s %+v)", name, byName[name].Status, st, byName[name].Summary, byName[name].Items)
				}
			}
			for name, text := range tt.wantIn {
				if said := says(byName[name]); !strings.Contains(said, text) {
					t.Errorf("%s does not say %q:\n%s", name, text, said)
				}
			}
		})
	}
}

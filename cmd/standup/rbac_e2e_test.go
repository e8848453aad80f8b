package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	"github.com/kubestandup/standup/internal/testenv"
)

// rbacRoles reads the ClusterRoles standup ships in docs/rbac.yaml.
func rbacRoles(t *testing.T) map[string]*rbacv1.ClusterRole {
	t.Helper()
	data, err := os.ReadFile("../../docs/rbac.yaml")
	if err != nil {
		t.Fatal(err)
	}
	roles := map[string]*rbacv1.ClusterRole{}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("docs/rbac.yaml: %v", err)
		}
		var probe map[string]any
		if err := yaml.Unmarshal(doc, &probe); err != nil || probe == nil {
			continue // comments only
		}
		role := &rbacv1.ClusterRole{}
		if err := yaml.UnmarshalStrict(doc, role); err != nil {
			t.Fatalf("docs/rbac.yaml: %v", err)
		}
		roles[role.Name] = role
	}
	return roles
}

// without copies role, naming it name, with verb removed for resource.
func without(role *rbacv1.ClusterRole, verb, group, resource string) *rbacv1.ClusterRole {
	out := &rbacv1.ClusterRole{}
	out.Name = fmt.Sprintf("%s-without-%s-%s", role.Name, verb, resource)
	for _, r := range role.Rules {
		if !slices.Contains(r.APIGroups, group) || !slices.Contains(r.Resources, resource) {
			out.Rules = append(out.Rules, r)
			continue
		}
		if others := slices.DeleteFunc(slices.Clone(r.Resources), func(s string) bool { return s == resource }); len(others) > 0 {
			rest := *r.DeepCopy()
			rest.Resources = others
			out.Rules = append(out.Rules, rest)
		}
		out.Rules = append(out.Rules, rbacv1.PolicyRule{
			APIGroups: []string{group}, Resources: []string{resource},
			Verbs: slices.DeleteFunc(slices.Clone(r.Verbs), func(v string) bool { return v == verb }),
		})
	}
	return out
}

// userBoundTo creates role (unless it exists), a user bound to it, and
// returns the user's kubeconfig.
func userBoundTo(t *testing.T, w *testenv.World, role *rbacv1.ClusterRole) string {
	t.Helper()
	ctx := context.Background()
	scheme := runtime.NewScheme()
	if err := rbacv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(w.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Create(ctx, role.DeepCopy()); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	user := "user-" + role.Name
	binding := &rbacv1.ClusterRoleBinding{
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}
	binding.Name = user
	if err := c.Create(ctx, binding); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	authn, err := w.Env.AddUser(envtest.User{Name: user}, nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := authn.KubeConfig()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), user+".kubeconfig")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

const (
	ksResource  = "kustomizations.kustomize.toolkit.fluxcd.io"
	crdResource = "customresourcedefinitions.apiextensions.k8s.io"
	gitResource = "gitrepositories.source.toolkit.fluxcd.io"
)

func TestRBACLeastPrivilegeRoles(t *testing.T) {
	w, graph := suspendedGraph(t)
	wit := witnessFrom(t, w)
	roles := rbacRoles(t)
	viewer, operator := roles["standup-viewer"], roles["standup-operator"]
	if viewer == nil || operator == nil {
		t.Fatalf("docs/rbac.yaml holds %v, want standup-viewer and standup-operator", roles)
	}
	bundle := writeTree(t, t.TempDir(), map[string]string{
		"sprockets.yaml": strings.NewReplacer("widgets", "sprockets", "Widget", "Sprocket", "singular: widget", "singular: sprocket").Replace(widgetCRD),
	})
	crdsAll := []string{"crds", "--all", "--crds", bundle}

	// With one verb removed, each command stops, naming the verb and the
	// resource. Each walk starts on the suspended graph. (With streaming
	// watch-lists, which this API server serves, an informer needs "watch"
	// only; "list" on CRDs and sources stays in the roles for servers
	// without them, and "list" on both is proven by direct lists.)
	refusals := []struct {
		role      *rbacv1.ClusterRole
		args      []string
		verb, res string
	}{
		{without(viewer, "list", "kustomize.toolkit.fluxcd.io", "kustomizations"), []string{"tiers"}, "list", ksResource},
		{viewer, []string{"resume"}, "patch", ksResource},
		{without(operator, "patch", "kustomize.toolkit.fluxcd.io", "kustomizations"), []string{"resume"}, "patch", ksResource},
		{without(operator, "list", "apiextensions.k8s.io", "customresourcedefinitions"), crdsAll, "list", crdResource},
		{without(operator, "watch", "apiextensions.k8s.io", "customresourcedefinitions"), []string{"resume"}, "watch", crdResource},
		{without(operator, "watch", "source.toolkit.fluxcd.io", "gitrepositories"), []string{"resume"}, "watch", gitResource},
		{without(operator, "get", "source.toolkit.fluxcd.io", "gitrepositories"), []string{"resume", "--dry-run"}, "get", gitResource},
		{without(operator, "get", "apiextensions.k8s.io", "customresourcedefinitions"), crdsAll, "get", crdResource},
		{without(operator, "create", "apiextensions.k8s.io", "customresourcedefinitions"), crdsAll, "create", crdResource},
		{without(operator, "patch", "apiextensions.k8s.io", "customresourcedefinitions"), crdsAll, "patch", crdResource},
		{without(operator, "watch", "kustomize.toolkit.fluxcd.io", "kustomizations"), []string{"resume"}, "watch", ksResource},
	}
	for _, r := range refusals {
		t.Run(r.role.Name+"/"+strings.Join(r.args[:1], " "), func(t *testing.T) {
			suspendAll(t, w)
			kubeconfig := userBoundTo(t, w, r.role)
			start := time.Now()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			res := runWith(ctx, t, runSpec{kubeconfig: kubeconfig}, append(r.args, "-v")...)
			if res.Code == ExitOK || res.Code == ExitInterrupted || res.Code == ExitTimeout {
				t.Fatalf("exit %d after %s: want a refusal", res.Code, time.Since(start).Round(time.Millisecond))
			}
			want := fmt.Sprintf("forbidden: standup needs %q on %s", r.verb, r.res)
			if msg := errorLine(t, res.Stderr); !strings.Contains(msg, want) {
				t.Errorf("error %q does not say %q", msg, want)
			}
			if took := time.Since(start); took > 30*time.Second {
				t.Errorf("took %s to report the refusal", took)
			}
			if counts, ok := apiRequests(res.Stderr); ok {
				if bad := countedViolations(counts, true); len(bad) > 0 {
					t.Errorf("counter shows %v", bad)
				}
			}
		})
	}

	t.Run("viewer runs tiers", func(t *testing.T) {
		res := runWith(context.Background(), t, runSpec{kubeconfig: userBoundTo(t, w, viewer)}, "tiers")
		if res.Code != ExitOK {
			t.Fatalf("exit %d: %v", res.Code, res.Err)
		}
		for _, k := range graph {
			if !strings.Contains(res.Stdout, k.Namespace+"/"+k.Name) {
				t.Errorf("tiers output lacks %s/%s:\n%s", k.Namespace, k.Name, res.Stdout)
			}
		}
	})
	suspendAll(t, w)
	operatorKubeconfig := userBoundTo(t, w, operator)
	t.Run("operator runs crds --all", func(t *testing.T) {
		res := runWith(context.Background(), t, runSpec{kubeconfig: operatorKubeconfig}, append(crdsAll, "-v")...)
		if res.Code != ExitOK || !strings.Contains(res.Stdout, "sprockets.example.com applied") {
			t.Fatalf("exit %d, stdout %q: %v", res.Code, res.Stdout, res.Err)
		}
	})
	t.Run("operator runs resume", func(t *testing.T) {
		res := runWith(context.Background(), t, runSpec{kubeconfig: operatorKubeconfig}, "resume", "-o", "json", "-v")
		if res.Code != ExitOK {
			t.Fatalf("exit %d: %v", res.Code, res.Err)
		}
		assertConverged(t, w, graph, events(t, res.Stdout))
		assertCounted(t, res, true)
	})
	t.Run("operator runs crds", func(t *testing.T) {
		res := runWith(context.Background(), t, runSpec{kubeconfig: operatorKubeconfig}, "crds", "--crds", bundle, "-v")
		if res.Code != ExitOK || !strings.Contains(res.Stdout, "nothing to do") {
			t.Fatalf("exit %d, stdout %q: %v", res.Code, res.Stdout, res.Err)
		}
	})
	wit.assertNothingLost(t)
}

// suspendAll suspends every Kustomization, as the admin, so a walk has work.
func suspendAll(t *testing.T, w *testenv.World) {
	t.Helper()
	for _, ks := range listKS(t, w) {
		if ks.Spec.Suspend {
			continue
		}
		patch := client.RawPatch("application/merge-patch+json", []byte(`{"spec":{"suspend":true}}`))
		if err := w.Client.Patch(context.Background(), &ks, patch); err != nil {
			t.Fatal(err)
		}
	}
}

package main

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

// spokeBundleDir is a CRD bundle a spoke can be given.
const spokeBundleDir = "testdata/cdi-runtime-crds"

// oneLineUsage checks err is a usage error (exit 2), one line, holding want.
func oneLineUsage(t *testing.T, err error, want string, usage bool) {
	t.Helper()
	if err == nil {
		t.Fatalf("accepted; want an error holding %q", want)
	}
	var ue *usageError
	if msg := err.Error(); !strings.Contains(msg, want) || strings.Contains(msg, "\n") || errors.As(err, &ue) != usage {
		t.Fatalf("err %q (usage error: %v): want one line holding %q, usage error %v", msg, errors.As(err, &ue), want, usage)
	}
}

// TestSpokeBundles: --spoke-crds SECRET=DIR, SECRET the Secret's name or
// namespace/name, each once, DIR a bundle; every refusal is one line.
func TestSpokeBundles(t *testing.T) {
	tests := []struct {
		name     string
		values   []string
		wantKeys []string
		wantErr  string
		usage    bool
	}{
		{name: "none", wantKeys: []string{}},
		{name: "by namespace/name", values: []string{"clusters/staging=" + spokeBundleDir}, wantKeys: []string{"clusters/staging"}},
		{name: "by name", values: []string{"staging=" + spokeBundleDir}, wantKeys: []string{"staging"}},
		{name: "two spokes", values: []string{"staging=" + spokeBundleDir, "clusters/production=" + spokeBundleDir}, wantKeys: []string{"clusters/production", "staging"}},
		{name: "no =", values: []string{spokeBundleDir}, wantErr: "want SECRET=DIR", usage: true},
		{name: "no dir", values: []string{"staging="}, wantErr: `--spoke-crds "staging=": want SECRET=DIR`, usage: true},
		{name: "no secret", values: []string{"=" + spokeBundleDir}, wantErr: "want SECRET=DIR", usage: true},
		{name: "two slashes", values: []string{"a/b/c=" + spokeBundleDir}, wantErr: "want SECRET=DIR", usage: true},
		{name: "given twice", values: []string{"staging=" + spokeBundleDir, "staging=" + spokeBundleDir}, wantErr: "--spoke-crds staging given twice: one bundle for each spoke", usage: true},
		{name: "no such dir", values: []string{"staging=testdata/nope"}, wantErr: "--spoke-crds staging: crd bundle testdata/nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := spokeBundles(tt.values)
			if tt.wantErr != "" {
				oneLineUsage(t, err, tt.wantErr, tt.usage)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			keys := make([]string, 0, len(got))
			for k, b := range got {
				if b == nil {
					t.Errorf("%s: no bundle", k)
				}
				keys = append(keys, k)
			}
			slices.Sort(keys)
			if !slices.Equal(keys, tt.wantKeys) {
				t.Fatalf("bundles for %v, want %v", keys, tt.wantKeys)
			}
		})
	}
}

// TestBundleFor: a --spoke-crds SECRET names a walked node's Secret by
// namespace/name, or by its name when no other namespace has one of that
// name; else it names none.
func TestBundleFor(t *testing.T) {
	full, short, other := &crds.Bundle{}, &crds.Bundle{}, &crds.Bundle{}
	bundles := map[string]*crds.Bundle{"clusters/staging": full, "production": short, "dev": other}
	tests := []struct {
		name    string
		given   string
		secrets []string
		want    *crds.Bundle
	}{
		{name: "namespace/name", given: "clusters/staging", secrets: []string{"clusters/production", "clusters/staging"}, want: full},
		{name: "name, alone of its name", given: "production", secrets: []string{"clusters/production", "clusters/staging"}, want: short},
		{name: "name in two namespaces", given: "production", secrets: []string{"clusters/production", "eu/production"}},
		{name: "namespace/name no node uses", given: "clusters/staging", secrets: []string{"eu/staging"}},
		{name: "name no node uses", given: "dev", secrets: []string{"clusters/production"}},
		{name: "no spokes", given: "dev"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := bundleFor(bundles, tt.given, tt.secrets); got != tt.want {
				t.Fatalf("bundleFor(%s, %v) = %p, want %p", tt.given, tt.secrets, got, tt.want)
			}
		})
	}
}

// TestCheckSpokeBundles: a --spoke-crds SECRET no walked node names is
// refused before anything is done, in one line naming the Secrets the
// nodes do name; a name two namespaces share asks for namespace/name.
func TestCheckSpokeBundles(t *testing.T) {
	b := &crds.Bundle{}
	tests := []struct {
		name    string
		bundles map[string]*crds.Bundle
		secrets []string
		wantErr string
	}{
		{name: "every one used", bundles: map[string]*crds.Bundle{"clusters/staging": b, "production": b}, secrets: []string{"clusters/production", "clusters/staging"}},
		{name: "none given", secrets: []string{"clusters/staging"}},
		{name: "unused", bundles: map[string]*crds.Bundle{"dev": b}, secrets: []string{"clusters/production", "clusters/staging"},
			wantErr: "--spoke-crds dev: no Kustomization or HelmRelease names kubeConfig Secret dev (their Secrets: clusters/production, clusters/staging)"},
		{name: "no spoke at all", bundles: map[string]*crds.Bundle{"clusters/dev": b},
			wantErr: "--spoke-crds clusters/dev: no Kustomization or HelmRelease names kubeConfig Secret clusters/dev (their Secrets: none)"},
		{name: "ambiguous name", bundles: map[string]*crds.Bundle{"production": b}, secrets: []string{"clusters/production", "eu/production"},
			wantErr: "--spoke-crds production: kubeConfig Secrets of that name are in 2 namespaces (clusters/production, eu/production): give NAMESPACE/NAME"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkSpokeBundles(tt.bundles, tt.secrets)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			oneLineUsage(t, err, tt.wantErr, true)
		})
	}
}

// TestSpokeBundleFallsBackToCrds: a spoke's bundle is its --spoke-crds
// (by namespace/name, else by name), else the hub's --crds, else none.
func TestSpokeBundleFallsBackToCrds(t *testing.T) {
	hub, full, short := &crds.Bundle{}, &crds.Bundle{}, &crds.Bundle{}
	bundles := map[string]*crds.Bundle{"clusters/staging": full, "production": short}
	tests := []struct {
		name    string
		secret  string
		hub     *crds.Bundle
		bundles map[string]*crds.Bundle
		want    *crds.Bundle
	}{
		{name: "namespace/name", secret: "clusters/staging", hub: hub, bundles: bundles, want: full},
		{name: "name", secret: "clusters/production", hub: hub, bundles: bundles, want: short},
		{name: "none given for it: --crds", secret: "clusters/dev", hub: hub, bundles: bundles, want: hub},
		{name: "no --spoke-crds: --crds", secret: "clusters/staging", hub: hub, want: hub},
		{name: "neither", secret: "clusters/dev", bundles: bundles},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := spokeBundle(tt.bundles, tt.secret, tt.hub); got != tt.want {
				t.Fatalf("spokeBundle(%s) = %p, want %p", tt.secret, got, tt.want)
			}
		})
	}
}

// spokeKubeconfig is a self-contained kubeconfig of the cluster at server.
func spokeKubeconfig(server string) []byte {
	return []byte(`apiVersion: v1
kind: Config
clusters:
- name: spoke
  cluster:
    server: ` + server + `
contexts:
- name: spoke
  context: {cluster: spoke, user: admin}
current-context: spoke
users:
- name: admin
  user: {token: t}
`)
}

// hubWith is a hub whose API holds objs, its reads passed through funcs.
func hubWith(funcs interceptor.Funcs, objs ...client.Object) *cluster {
	c := fake.NewClientBuilder().WithScheme(clientgoscheme.Scheme).WithObjects(objs...).WithInterceptorFuncs(funcs).Build()
	return &cluster{Client: c, Host: "https://hub:6443"}
}

func kubeconfigSecret(data map[string][]byte) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "clusters", Name: "spoke-kubeconfig"}, Data: data}
}

// forbidGets refuses every get as the RBAC authorizer does.
var forbidGets = interceptor.Funcs{Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	return apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, key.Name,
		errors.New(`User "alice" cannot get resource "secrets" in API group "" in the namespace "`+key.Namespace+`"`))
}}

// TestSpokeConfigReadsTheSecretAsFlux: the kubeconfig is read from the
// Secret's spec.kubeConfig.secretRef.key alone when set, else value, else
// value.yaml; a kubeconfig that runs a plugin or does not parse, or a
// Secret that cannot be read, is one line naming the Secret. Nothing
// reaches the spoke.
func TestSpokeConfigReadsTheSecretAsFlux(t *testing.T) {
	const secret = "clusters/spoke-kubeconfig"
	exec := []byte("apiVersion: v1\nkind: Config\nclusters:\n- name: s\n  cluster: {server: 'https://exec:6443'}\ncontexts:\n- name: s\n  context: {cluster: s, user: u}\ncurrent-context: s\nusers:\n- name: u\n  user:\n    exec: {apiVersion: client.authentication.k8s.io/v1, command: aws}\n")
	tests := []struct {
		name     string
		data     map[string][]byte
		key      string
		funcs    interceptor.Funcs
		missing  bool
		wantHost string
		wantErr  string
	}{
		{name: "secretRef.key", key: "prod", data: map[string][]byte{"prod": spokeKubeconfig("https://prod:6443"), "value": spokeKubeconfig("https://value:6443")}, wantHost: "https://prod:6443"},
		{name: "value before value.yaml", data: map[string][]byte{"value": spokeKubeconfig("https://value:6443"), "value.yaml": spokeKubeconfig("https://yaml:6443")}, wantHost: "https://value:6443"},
		{name: "value.yaml without value", data: map[string][]byte{"value.yaml": spokeKubeconfig("https://yaml:6443")}, wantHost: "https://yaml:6443"},
		{name: "secretRef.key absent: no fallback", key: "prod", data: map[string][]byte{"value": spokeKubeconfig("https://value:6443")},
			wantErr: `Secret/` + secret + ` has no key "prod" with a kubeconfig (spec.kubeConfig.secretRef.key)`},
		{name: "no kubeconfig key", data: map[string][]byte{"config": spokeKubeconfig("https://x:6443")}, wantErr: `Secret/` + secret + ` has no key "value" or "value.yaml"`},
		{name: "exec plugin", data: map[string][]byte{"value": exec}, wantErr: `Secret/` + secret + `: user "u" runs an exec or auth-provider plugin; standup runs no command a Secret names`},
		{name: "malformed", data: map[string][]byte{"value": []byte("clusters: [unclosed\n")}, wantErr: `Secret/` + secret + `: not a kubeconfig: `},
		{name: "forbidden", funcs: forbidGets, data: map[string][]byte{"value": spokeKubeconfig("https://value:6443")}, wantErr: `forbidden: standup needs "get" on secrets`},
		{name: "not found", missing: true, wantErr: `get secrets failed: secrets "spoke-kubeconfig" not found`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var objs []client.Object
			if !tt.missing {
				objs = append(objs, kubeconfigSecret(tt.data))
			}
			cfg, err := spokeConfig(context.Background(), globalOptions{}, hubWith(tt.funcs, objs...), secret, tt.key)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("err %v: want one line holding %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Host != tt.wantHost {
				t.Fatalf("host %s, want %s", cfg.Host, tt.wantHost)
			}
		})
	}
}

// spokeNodes are two Kustomizations of the hub applying through
// clusters/spoke-kubeconfig.
func spokeNodes() []flux.Object {
	ref := &flux.KubeConfigRef{SecretName: "spoke-kubeconfig"}
	return []flux.Object{
		{Node: tiers.Node{ID: tiers.ID{Kind: flux.KindKustomization, Namespace: "clusters", Name: "infra"}}, KubeConfig: ref},
		{Node: tiers.Node{ID: tiers.ID{Kind: flux.KindKustomization, Namespace: "clusters", Name: "apps"}}, KubeConfig: ref},
	}
}

// TestSpokeFallback: the line that leaves a spoke to the hub's view names
// the Secret, its nodes, why, that nothing is pre-applied for them, and
// what to do: the grant (docs/rbac.yaml's standup-hub) when forbidden.
func TestSpokeFallback(t *testing.T) {
	forbidden := forbidGets.Get(context.Background(), nil, client.ObjectKey{Namespace: "clusters", Name: "spoke-kubeconfig"}, nil)
	tests := []struct {
		name  string
		users []string
		err   error
		want  []string
	}{
		{name: "forbidden", users: []string{"Kustomization/clusters/apps", "Kustomization/clusters/infra"}, err: forbidden, want: []string{
			"warning: kubeConfig Secret clusters/spoke-kubeconfig (of Kustomization/clusters/apps and 1 more): ",
			`cannot get resource "secrets"`,
			"falling back to the hub's view of its cluster: its nodes' missing kinds are looked up on the hub, and no CRD is pre-applied for them",
			"; grant get on secrets (resourceNames: [spoke-kubeconfig]) in namespace clusters (docs/rbac.yaml's standup-hub role) to reach it",
		}},
		{name: "not found", users: []string{"Kustomization/clusters/apps"}, err: apierrors.NewNotFound(schema.GroupResource{Resource: "secrets"}, "spoke-kubeconfig"), want: []string{
			"kubeConfig Secret clusters/spoke-kubeconfig (of Kustomization/clusters/apps): ",
			"; create the Secret, or correct spec.kubeConfig.secretRef, to reach it",
		}},
		{name: "unreachable", users: []string{"Kustomization/clusters/apps"}, err: errors.New("its cluster https://10.0.0.9:6443: connection refused"), want: []string{
			"(of Kustomization/clusters/apps): its cluster https://10.0.0.9:6443: connection refused; falling back",
			"; make the Secret's kubeconfig reach its cluster from here to reach it",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line := spokeFallback("clusters/spoke-kubeconfig", tt.users, tt.err)
			if strings.Contains(line, "\n") {
				t.Fatalf("not one line: %q", line)
			}
			for _, want := range tt.want {
				if !strings.Contains(line, want) {
					t.Errorf("%q lacks %q", line, want)
				}
			}
			if tt.name != "forbidden" && strings.Contains(line, "grant") {
				t.Errorf("%q asks for a grant, but the error is not a refusal", line)
			}
		})
	}
}

// TestConnectSpokesFallsBackWhenTheSecretIsForbidden: a hub that may not
// get the kubeConfig Secret leaves its spoke out, with no error and the
// fallback said once on stderr, naming the Secret and the grant; a
// --spoke-crds for a Secret no node names is refused first.
func TestConnectSpokesFallsBackWhenTheSecretIsForbidden(t *testing.T) {
	hub := hubWith(forbidGets, kubeconfigSecret(map[string][]byte{"value": spokeKubeconfig("https://10.0.0.9:6443")}))
	var errOut bytes.Buffer
	spokes, err := connectSpokes(context.Background(), globalOptions{}, hub, spokeNodes(), nil, nil, &errOut)
	if err != nil || len(spokes) != 0 {
		t.Fatalf("spokes %v, err %v: want none and no error", spokes, err)
	}
	lines := strings.Split(strings.TrimSpace(errOut.String()), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], "kubeConfig Secret clusters/spoke-kubeconfig (of Kustomization/clusters/infra and 1 more)") ||
		!strings.Contains(lines[0], "grant get on secrets (resourceNames: [spoke-kubeconfig]) in namespace clusters") {
		t.Fatalf("stderr %q: want one fallback line naming the Secret and the grant", errOut.String())
	}
	errOut.Reset()
	_, err = connectSpokes(context.Background(), globalOptions{}, hub, spokeNodes(), nil, map[string]*crds.Bundle{"staging": {}}, &errOut)
	oneLineUsage(t, err, "--spoke-crds staging: no Kustomization or HelmRelease names kubeConfig Secret staging (their Secrets: clusters/spoke-kubeconfig)", true)
	if errOut.Len() != 0 {
		t.Errorf("refused, yet said %q", errOut.String())
	}
}

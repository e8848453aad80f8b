package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/kube"
	"github.com/kubestandup/standup/pkg/wait"
)

// Hub and spoke: a Kustomization or a HelmRelease with
// spec.kubeConfig.secretRef applies to the cluster its Secret's kubeconfig
// names. resume reads each such Secret once, as Flux reads it, connects to
// the spoke with the hub's request timeouts, and hands the walk the spoke
// (wait.Spoke): its CRDs are watched there and its missing CRDs
// pre-applied there, from the bundle --spoke-crds gives it (else --crds's).
// A Secret standup may not read, or a spoke it cannot list CRDs on, leaves
// that spoke to the hub's view, said once on stderr.

// spokeCRDsFlagName is resume's flag naming a spoke's CRD bundle.
const spokeCRDsFlagName = "spoke-crds"

// spokeBundles reads --spoke-crds SECRET=DIR, each given once: SECRET is
// the kubeConfig Secret's name, or namespace/name when names repeat across
// namespaces.
func spokeBundles(values []string) (map[string]*crds.Bundle, error) {
	out := map[string]*crds.Bundle{}
	for _, v := range values {
		secret, dir, ok := strings.Cut(v, "=")
		if !ok || secret == "" || dir == "" || strings.Count(secret, "/") > 1 {
			return nil, usageErrorf("--%s %q: want SECRET=DIR (the kubeConfig Secret's name, or NAMESPACE/NAME, and its spoke's CRD bundle)", spokeCRDsFlagName, v)
		}
		if _, dup := out[secret]; dup {
			return nil, usageErrorf("--%s %s given twice: one bundle for each spoke", spokeCRDsFlagName, secret)
		}
		b, err := crds.LoadBundle(dir)
		if err != nil {
			return nil, fmt.Errorf("--%s %s: %w", spokeCRDsFlagName, secret, err)
		}
		out[secret] = b
	}
	return out, nil
}

// targetSecrets returns every kubeConfig Secret objs name (namespace/name),
// sorted, each with the nodes that name it.
func targetSecrets(objs []flux.Object) ([]string, map[string][]string) {
	users := map[string][]string{}
	for _, o := range objs {
		if s := o.TargetSecret(); s != "" {
			users[s] = append(users[s], o.ID.String())
		}
	}
	secrets := make([]string, 0, len(users))
	for s := range users {
		secrets = append(secrets, s)
	}
	sort.Strings(secrets)
	return secrets, users
}

// checkSpokeBundles refuses a --spoke-crds SECRET no walked node names,
// before anything is done.
func checkSpokeBundles(bundles map[string]*crds.Bundle, secrets []string) error {
	for given := range bundles {
		if bundleFor(bundles, given, secrets) != nil {
			continue
		}
		if match := secretsNamed(given, secrets); len(match) > 1 {
			return usageErrorf("--%s %s: kubeConfig Secrets of that name are in %d namespaces (%s): give NAMESPACE/NAME",
				spokeCRDsFlagName, given, len(match), strings.Join(match, ", "))
		}
		return usageErrorf("--%s %s: no Kustomization or HelmRelease names kubeConfig Secret %s (their Secrets: %s)",
			spokeCRDsFlagName, given, given, orNoneList(secrets))
	}
	return nil
}

// secretsNamed returns the secrets (namespace/name) whose name is name.
func secretsNamed(name string, secrets []string) []string {
	var match []string
	for _, s := range secrets {
		if _, n, _ := strings.Cut(s, "/"); n == name {
			match = append(match, s)
		}
	}
	return match
}

// bundleFor is the --spoke-crds bundle given for secret (namespace/name),
// by its full name or, when that name is the only one, its name alone; nil
// when none is.
func bundleFor(bundles map[string]*crds.Bundle, given string, secrets []string) *crds.Bundle {
	for _, s := range secrets {
		if s == given {
			return bundles[given]
		}
	}
	if len(secretsNamed(given, secrets)) == 1 {
		return bundles[given]
	}
	return nil
}

// spokeBundle is the bundle of the spoke of secret: its --spoke-crds, else
// the hub's --crds.
func spokeBundle(bundles map[string]*crds.Bundle, secret string, hub *crds.Bundle) *crds.Bundle {
	if b, ok := bundles[secret]; ok {
		return b
	}
	if _, name, _ := strings.Cut(secret, "/"); bundles[name] != nil {
		return bundles[name]
	}
	return hub
}

// connectSpokes reaches the spoke of every kubeConfig Secret objs name.
// A Secret that cannot be read, or a spoke that cannot be listed, is left
// out: the walk judges its nodes by the hub's view, and the fallback is
// said once on errOut, naming the Secret and what to grant. Only a
// cancelled ctx is an error.
func connectSpokes(ctx context.Context, g globalOptions, hub *cluster, objs []flux.Object, hubBundle *crds.Bundle, bundles map[string]*crds.Bundle, errOut io.Writer) ([]wait.Spoke, error) {
	secrets, users := targetSecrets(objs)
	if err := checkSpokeBundles(bundles, secrets); err != nil {
		return nil, err
	}
	keys := map[string]string{}
	for _, o := range objs {
		if o.KubeConfig != nil {
			keys[o.TargetSecret()] = o.KubeConfig.Key
		}
	}
	var spokes []wait.Spoke
	for _, secret := range secrets {
		s, err := connectSpoke(ctx, g, hub, secret, keys[secret])
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			fmt.Fprintln(errOut, spokeFallback(secret, users[secret], err))
			continue
		}
		s.Bundle = spokeBundle(bundles, secret, hubBundle)
		spokes = append(spokes, s)
	}
	return spokes, nil
}

// connectSpoke reads secret's kubeconfig (its key, else Flux's default
// keys) and connects to its cluster, with the hub's timeouts and request
// counter, and lists its CRDs once: a spoke that refuses or cannot be
// reached is an error here, not a walk that fails later.
func connectSpoke(ctx context.Context, g globalOptions, hub *cluster, secret, key string) (wait.Spoke, error) {
	_, name, _ := strings.Cut(secret, "/")
	cfg, err := spokeConfig(ctx, g, hub, secret, key)
	if err != nil {
		return wait.Spoke{}, err
	}
	c, err := flux.NewClient(cfg)
	if err != nil {
		return wait.Spoke{}, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return wait.Spoke{}, err
	}
	if _, err := crds.ListCRDs(ctx, c); err != nil {
		return wait.Spoke{}, fmt.Errorf("its cluster %s: %w", cfg.Host, err)
	}
	return wait.Spoke{Secret: secret, SpokeView: wait.SpokeView{Name: name}, Dynamic: dyn, Client: c}, nil
}

// spokeConfig reads secret (namespace/name) on the hub and returns the
// client config of its kubeconfig, read as Flux reads it (key, else value,
// else value.yaml) and tuned with the hub's timeouts and request counter.
// Nothing is sent to the spoke.
func spokeConfig(ctx context.Context, g globalOptions, hub *cluster, secret, key string) (*rest.Config, error) {
	ns, name, _ := strings.Cut(secret, "/")
	sec := &corev1.Secret{}
	if err := hub.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, sec); err != nil {
		return nil, kube.Explain(err, "get", "secrets")
	}
	data, _, err := flux.KubeconfigFromSecret(sec.Data, secret, key)
	if err != nil {
		return nil, err
	}
	return kube.RESTConfigFromKubeconfig(data, "Secret/"+secret, kube.Options{
		Counter: hub.Counter, Warnings: g.Verbose, Lifetime: ctx, RequestTimeout: hubRequestTimeout(g),
	})
}

// spokeFallback is the one line that says a spoke is left to the hub's
// view: which Secret, for which nodes, why, and what to grant.
func spokeFallback(secret string, users []string, err error) string {
	ns, name, _ := strings.Cut(secret, "/")
	who := users[0]
	if len(users) > 1 {
		who += fmt.Sprintf(" and %d more", len(users)-1)
	}
	var grant string
	switch {
	case apierrors.IsForbidden(err):
		grant = fmt.Sprintf("grant get on secrets (resourceNames: [%s]) in namespace %s (docs/rbac.yaml's standup-hub role)", name, ns)
	case apierrors.IsNotFound(err):
		grant = "create the Secret, or correct spec.kubeConfig.secretRef,"
	default:
		grant = "make the Secret's kubeconfig reach its cluster from here"
	}
	return fmt.Sprintf("warning: kubeConfig Secret %s (of %s): %v; falling back to the hub's view of its cluster: its nodes' missing kinds are looked up on the hub, and no CRD is pre-applied for them; %s to reach it",
		secret, who, err, grant)
}

// hubRequestTimeout is --request-timeout as connect gives it to the hub's
// client: 0 (none) is -1 to pkg/kube.
func hubRequestTimeout(g globalOptions) time.Duration {
	if g.RequestTimeout == 0 {
		return -1
	}
	return g.RequestTimeout
}

func orNoneList(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

// anyBundle reports whether the hub or a spoke has a bundle: without any,
// the walk reports deadlocks and pre-applies nothing.
func anyBundle(hub *crds.Bundle, spokes []wait.Spoke) bool {
	if hub != nil {
		return true
	}
	for _, s := range spokes {
		if s.Bundle != nil {
			return true
		}
	}
	return false
}

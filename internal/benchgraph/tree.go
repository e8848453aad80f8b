package benchgraph

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"sigs.k8s.io/kustomize/api/konfig"
	kustypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/yaml"

	"github.com/kubestandup/standup/internal/testenv"
)

// Delay is the custom resource a node with a duration applies.
const (
	DelayGroup   = "bench.standup.dev"
	DelayVersion = "v1"
	DelayKind    = "Delay"
)

// Path returns the source path of a node's directory, as spec.path takes it.
func Path(name string) string { return "./ks/" + name }

// WriteTree writes g's Flux source tree under dir: for every node,
// ks/<name>/kustomization.yaml and either delay.yaml (a Delay with
// spec.seconds = its duration) or configmap.yaml (no duration). The same
// graph always writes the same bytes.
func (g Graph) WriteTree(dir string) error {
	for _, n := range g.Nodes {
		if err := g.writeNode(filepath.Join(dir, filepath.FromSlash(Path(n.Name))), n); err != nil {
			return fmt.Errorf("Kustomization/%s/%s tree: %w", g.Namespace, n.Name, err)
		}
	}
	return nil
}

func (g Graph) writeNode(dir string, n Node) error {
	file, obj := "configmap.yaml", g.configMap(n)
	if n.Duration > 0 {
		file, obj = "delay.yaml", g.delay(n)
	}
	kus := kustypes.Kustomization{
		TypeMeta:  kustypes.TypeMeta{APIVersion: kustypes.KustomizationVersion, Kind: kustypes.KustomizationKind},
		Resources: []string{file},
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := writeYAML(filepath.Join(dir, konfig.DefaultKustomizationFileName()), kus); err != nil {
		return err
	}
	return writeYAML(filepath.Join(dir, file), obj)
}

func (g Graph) delay(n Node) map[string]any {
	return map[string]any{
		"apiVersion": DelayGroup + "/" + DelayVersion,
		"kind":       DelayKind,
		"metadata":   map[string]any{"name": n.Name, "namespace": g.Namespace},
		"spec":       map[string]any{"seconds": int64(n.Duration.Seconds())},
	}
}

func (g Graph) configMap(n Node) map[string]any {
	return map[string]any{
		"apiVersion": "v1",
		"kind":       "ConfigMap",
		"metadata":   map[string]any{"name": n.Name, "namespace": g.Namespace},
		"data":       map[string]any{"tier": strconv.Itoa(n.Tier)},
	}
}

// writeYAML marshals v (map keys sorted, so deterministic) into path.
func writeYAML(path string, v any) error {
	data, err := yaml.Marshal(v)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// Kustomizations returns one testenv.KS per node, in g.Nodes order: in g's
// namespace, built from the GitRepository sourceName there, at Path(name),
// with wait: true and the node's dependsOn, suspended when suspend is set.
func (g Graph) Kustomizations(sourceName string, suspend bool) []testenv.KS {
	out := make([]testenv.KS, 0, len(g.Nodes))
	for _, n := range g.Nodes {
		k := testenv.KS{
			Namespace: g.Namespace, Name: n.Name, Path: Path(n.Name), Source: sourceName,
			Wait: true, Suspend: suspend,
		}
		for _, d := range n.DependsOn {
			k.DependsOn = append(k.DependsOn, testenv.Dep("", d))
		}
		out = append(out, k)
	}
	return out
}

// CheckoutPath is where WriteCheckout puts g's Kustomization objects,
// relative to the tree: what `standup resume --path` reads.
func (g Graph) CheckoutPath() string { return filepath.Join("clusters", g.Namespace) }

// WriteCheckout writes g's Kustomization objects, as Kustomizations
// returns them (not suspended), into dir/CheckoutPath(), so that dir is
// the git checkout the graph is applied from: the tree WriteTree wrote,
// and the cluster directory that names every Kustomization.
func (g Graph) WriteCheckout(dir, sourceName string) error {
	out := filepath.Join(dir, g.CheckoutPath())
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	var docs []byte
	for _, k := range g.Kustomizations(sourceName, false) {
		ks := k.Kustomization()
		ks.APIVersion, ks.Kind = kustomizev1.GroupVersion.String(), kustomizev1.KustomizationKind
		data, err := yaml.Marshal(ks)
		if err != nil {
			return fmt.Errorf("Kustomization/%s/%s: %w", k.Namespace, k.Name, err)
		}
		docs = append(append(docs, "---\n"...), data...)
	}
	return os.WriteFile(filepath.Join(out, "kustomizations.yaml"), docs, 0o644)
}

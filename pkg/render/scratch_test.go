package render

import (
	"context"
	"fmt"
	"testing"

	"github.com/kubestandup/standup/pkg/tiers"
	sigsyaml "sigs.k8s.io/yaml"
)

func TestScratch(t *testing.T) {
	res, err := Load(context.Background(), Options{Path: "../../examples/homelab/clusters/prod"})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range res.Rendered[tiers.ID{Kind: "Kustomization", Namespace: "flux-system", Name: "apps"}] {
		y, _ := sigsyaml.Marshal(m.Object.Object)
		fmt.Println(string(y))
	}
}

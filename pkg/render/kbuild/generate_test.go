package kbuild

import (
	"reflect"
	"testing"

	kustypes "sigs.k8s.io/kustomize/api/types"
	sigsyaml "sigs.k8s.io/yaml"
)

// TestListingIsItsFileParsed: a build reads a generated listing as it is
// (fluxKfile.parse) rather than printed and parsed back, as it reads every
// other kustomization file; the two must be one, whatever the paths hold.
func TestListingIsItsFileParsed(t *testing.T) {
	tests := map[string][]string{
		"plain":             {"./cm.yaml", "./sub"},
		"none":              nil,
		"YAML-ish names":    {"./a: b.yaml", "./- x.yaml", "./#c.yaml", "./'q'.yaml", `./"d".yaml`, "./yes.yaml", "./1.0.yaml", "./~.yaml"},
		"spaces and others": {"./with space.yaml", "./tab\t.yaml", "./ünïcode.yaml", "./@at+plus.yml"},
	}
	for name, resources := range tests {
		t.Run(name, func(t *testing.T) {
			listing := &kustypes.Kustomization{TypeMeta: kustypes.TypeMeta{APIVersion: kustypes.KustomizationVersion, Kind: kustypes.KustomizationKind}, Resources: resources}
			if len(resources) == 0 {
				listing.Namespace = "_placeholder"
			}
			gen := &fluxKfile{path: "/r/kustomization.yaml", listed: true, listing: listing}
			got, _, err := gen.parse()
			if err != nil {
				t.Fatal(err)
			}
			data, err := gen.bytes()
			if err != nil {
				t.Fatal(err)
			}
			var want kustypes.Kustomization
			if err := sigsyaml.Unmarshal(data, &want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("listing %#v\nits file parsed %#v", got, want)
			}
		})
	}
}

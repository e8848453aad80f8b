package render

import (
	"context"
	"fmt"
	"os"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestScratch(t *testing.T) {
	var crds []Manifest
	for _, ex := range []string{"homelab", "homelab-deadlock"} {
		res, err := Load(context.Background(), Options{Path: "../../examples/" + ex + "/clusters/prod"})
		if err != nil {
			t.Fatal(err)
		}
		for _, ms := range res.Rendered {
			for _, m := range ms {
				if m.Object.GetKind() == "CustomResourceDefinition" {
					crds = append(crds, m)
				}
			}
		}
	}
	data, _ := os.ReadFile("../../examples/homelab-deadlock/bootstrap/crds/storageprofiles.cdi.kubevirt.io.yaml")
	docs, _ := ReadManifests(data)
	crds = append(crds, Manifest{Object: docs[0].Object, File: "bundle"})
	scheme := runtime.NewScheme()
	apiextv1.AddToScheme(scheme)
	apiextensions.AddToScheme(scheme)
	for _, m := range crds {
		var v1 apiextv1.CustomResourceDefinition
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m.Object.Object, &v1); err != nil {
			t.Fatal(err)
		}
		apiextv1.SetObjectDefaults_CustomResourceDefinition(&v1)
		var internal apiextensions.CustomResourceDefinition
		if err := scheme.Convert(&v1, &internal, nil); err != nil {
			t.Fatal(err)
		}
		errs := validation.ValidateCustomResourceDefinition(context.Background(), &internal)
		fmt.Println(m.Object.GetName(), m.File, errs)
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubestandup/standup/internal/printer/coldstart"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/rehearse"
)

// rehearseCheckout is a checkout of two Kustomizations, apps depending on
// infra, as pkg/record/testdata/measured.ndjson recorded them.
func rehearseCheckout(t *testing.T) string {
	t.Helper()
	ks := func(name, extra string) string {
		return "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: " + name +
			"\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: ./" + name + "\n  prune: true\n" + extra +
			"  sourceRef:\n    kind: GitRepository\n    name: flux-system\n"
	}
	cm := func(name string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n  namespace: default\ndata:\n  a: b\n"
	}
	return writeTree(t, t.TempDir(), map[string]string{
		"standup.yaml":          "",
		"clusters/prod/ks.yaml": ks("infra", "  wait: true\n") + "---\n" + ks("apps", "  dependsOn:\n    - name: infra\n"),
		"infra/cm.yaml":         cm("infra"),
		"apps/cm.yaml":          cm("apps"),
	})
}

// TestRehearseFromRecord: the record's passes replace the model's costs,
// and the prediction follows exactly: standup brings infra (2.6 s) then
// apps (0.5 s) up in 3.1 s, against 5.3 s from the model (infra's 5 s
// health checks, 160 ms builds). -o json says where each came from.
func TestRehearseFromRecord(t *testing.T) {
	repo := rehearseCheckout(t)
	args := []string{"standup", "rehearse", "--path", filepath.Join(repo, "clusters", "prod"), "-o", "json"}
	for _, tt := range []struct {
		name     string
		extra    []string
		standup  time.Duration
		measured int
		source   rehearse.Source
	}{
		{"the model", nil, 5320 * time.Millisecond, 0, rehearse.SourceModel},
		{"the record", []string{"--from-record", filepath.Join("..", "..", "pkg", "record", "testdata", "measured.ndjson")}, 3100 * time.Millisecond, 2, rehearse.SourceRecord},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if err := Run(context.Background(), append(args, tt.extra...), Streams{In: strings.NewReader(""), Out: &out, Err: &errOut}); err != nil {
				t.Fatalf("rehearse: %v\n%s", err, errOut.String())
			}
			var r coldstart.Rehearsal
			if err := json.Unmarshal(out.Bytes(), &r); err != nil {
				t.Fatalf("-o json: %v\n%s", err, out.String())
			}
			if got := r.Results[2].AllReady; got != tt.standup {
				t.Errorf("standup all Ready at %s, want %s", got, tt.standup)
			}
			if r.Durations.Measured != tt.measured || len(r.Durations.Nodes) != 2 {
				t.Fatalf("durations %+v, want %d measured of 2", r.Durations, tt.measured)
			}
			for _, n := range r.Durations.Nodes {
				if n.Source != tt.source {
					t.Errorf("%s: source %s, want %s", n.Node, n.Source, tt.source)
				}
			}
		})
	}
}

// TestRehearseRefusesBothMeasures: one source of measured durations.
func TestRehearseRefusesBothMeasures(t *testing.T) {
	var out, errOut bytes.Buffer
	err := Run(context.Background(), []string{"standup", "rehearse", "--path", "clusters/prod", "--from-record", "r.ndjson", "--from-cluster"},
		Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
	if code := ExitCode(err, &errOut); code != ExitUsage || !strings.Contains(err.Error(), "--from-record and --from-cluster do not go together") || strings.Count(err.Error(), "\n") > 0 {
		t.Errorf("exit %d: %v", code, err)
	}
}

// TestRehearseListsKustomizationsOnly: --from-cluster lists
// Kustomizations, a page at a time, and nothing else; RBAC's refusal is
// one line that names the verb and the resource.
func TestRehearseListsKustomizationsOnly(t *testing.T) {
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{flux.KustomizationGVR: "KustomizationList"})
	forbid := false
	dyn.PrependReactor("*", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetVerb() != "list" || a.GetResource() != flux.KustomizationGVR {
			t.Errorf("%s %s: rehearse --from-cluster lists Kustomizations only", a.GetVerb(), a.GetResource())
		}
		if forbid {
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: flux.KustomizeGroup, Resource: "kustomizations"}, "",
				errString(`User "ci" cannot list resource "kustomizations" in API group "kustomize.toolkit.fluxcd.io" at the cluster scope`))
		}
		return false, nil, nil
	})
	cl := &cluster{Dynamic: dyn}
	if objs, err := listKustomizations(context.Background(), cl); err != nil || len(objs) != 0 {
		t.Fatalf("list: %d objects, %v", len(objs), err)
	}
	forbid = true
	_, err := listKustomizations(context.Background(), cl)
	if err == nil || !strings.HasPrefix(err.Error(), `forbidden: standup needs "list" on kustomizations.kustomize.toolkit.fluxcd.io`) || strings.Contains(err.Error(), "\n") {
		t.Errorf("refused: %v", err)
	}
}

type errString string

func (e errString) Error() string { return string(e) }

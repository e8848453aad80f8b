package printer

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubestandup/standup/pkg/record"
	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

// seedRecord is the seed's walk as a record: platform, then apps stuck on
// StorageProfile until standup pre-applies its CRD, then vms.
func seedRecord(t *testing.T) []byte {
	t.Helper()
	t0 := time.Date(2026, 12, 3, 3, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	id := func(name string) *tiers.ID {
		return &tiers.ID{Kind: "Kustomization", Namespace: "flux-system", Name: name}
	}
	platform, apps, vms := id("platform"), id("apps"), id("vms")
	var buf bytes.Buffer
	w := record.NewWriter(&buf, 0)
	w.Header(record.Header{Command: []string{"standup", "resume", "--record", "prod.ndjson"}, Standup: "v0.1.0", Server: "https://prod:6443", Started: t0})
	g, err := tiers.Build([]tiers.Node{{ID: *platform}, {ID: *apps, DependsOn: []tiers.Dependency{{ID: *platform}}}, {ID: *vms, DependsOn: []tiers.Dependency{{ID: *apps}}}}, tiers.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w.Graph(g)
	node := func(s float64, n *tiers.ID, tier int, p wait.Phase) {
		w.Event(wait.Event{Time: at(s), Type: wait.EventNode, Node: n, Tier: tier, Phase: p})
	}
	node(0, platform, 0, wait.PhasePending)
	node(0, apps, 1, wait.PhasePending)
	node(0, vms, 2, wait.PhasePending)
	w.Event(wait.Event{Time: at(0.1), Type: wait.EventAction, Node: platform, Action: "reconcile", Message: "reconcile.fluxcd.io/requestedAt=2026-12-03T03:00:00.1Z"})
	w.Request(at(0.1), record.Request{Verb: "patch", Resource: "kustomizations.kustomize.toolkit.fluxcd.io", Path: "/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/flux-system/kustomizations/platform", Code: 200})
	node(0.1, platform, 0, wait.PhaseReconciling)
	node(4, platform, 0, wait.PhaseReady)
	w.Event(wait.Event{Time: at(4), Type: wait.EventAction, Node: apps, Action: "reconcile", Message: "reconcile.fluxcd.io/requestedAt=2026-12-03T03:00:04Z"})
	node(4, apps, 1, wait.PhaseReconciling)
	w.Event(wait.Event{Time: at(4.5), Type: wait.EventDiagnosis, Node: apps, Tier: 1, Message: "suspected cold-start deadlock; proving it"})
	w.Event(wait.Event{Time: at(4.6), Type: wait.EventDiagnosis, Node: apps, Tier: 1, Message: "cold-start deadlock proven: nothing can create the missing CRDs", Proof: &wait.Proof{Kind: wait.ProofCertain}})
	node(4.6, apps, 1, wait.PhaseRemediating)
	w.Event(wait.Event{Time: at(4.7), Type: wait.EventAction, Node: apps, Action: "pre-apply-crds", Message: "created CustomResourceDefinition [storageprofiles.cdi.kubevirt.io] (field manager standup)"})
	w.Request(at(4.7), record.Request{Verb: "create", Resource: "customresourcedefinitions.apiextensions.k8s.io", Path: "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", Code: 201})
	node(4.8, apps, 1, wait.PhaseReconciling)
	node(9, apps, 1, wait.PhaseReady)
	node(9, vms, 2, wait.PhaseReconciling)
	node(12, vms, 2, wait.PhaseReady)
	w.Event(wait.Event{Time: at(12), Type: wait.EventSummary, Summary: &wait.Summary{Ready: 3, Total: 3, Mutations: 4, Elapsed: wait.Duration(12 * time.Second)}})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestReportGolden(t *testing.T) {
	rec, err := record.Read(bytes.NewReader(seedRecord(t)), "prod.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	r := record.Analyze(rec)
	for _, format := range []string{FormatText, FormatMarkdown} {
		var out bytes.Buffer
		if err := PrintReport(&out, format, r); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", "report", "seed."+format+".golden")
		if *update {
			if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), want) {
			t.Errorf("%s differs from %s (go test -update):\n%s", format, path, out.String())
		}
	}
	if got := JoinIDs(r.CriticalPath, " → "); got != "flux-system/platform → flux-system/apps → flux-system/vms" {
		t.Errorf("critical path %s", got)
	}
	apps := r.Nodes[1]
	if apps.WaitedOn == nil || apps.WaitedOn.Name != "platform" || time.Duration(apps.Waited) != 4*time.Second || time.Duration(apps.Stuck) != 300*time.Millisecond {
		t.Errorf("apps: %+v", apps)
	}
	if r.Writes["create customresourcedefinitions.apiextensions.k8s.io"] != 1 || r.Writes["patch kustomizations.kustomize.toolkit.fluxcd.io"] != 1 || r.Requests != 2 {
		t.Errorf("writes %v of %d requests", r.Writes, r.Requests)
	}
	if !strings.Contains(r.Timeline.Title, "resume --record prod.ndjson") {
		t.Errorf("title %q", r.Timeline.Title)
	}
}

package printer

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/wait"
)

// planFixture is the seed's stuck cluster as resume --dry-run sees it:
// the roots Ready, platform-config stuck on the StorageProfile dry-run
// (its CRD in the bundle, no CDI object: certain), apps-vms suspended
// behind it, and an ancestor outside the selection.
func planFixture() Plan {
	rev := "main@sha1:1a4c784b"
	d := crds.Diagnosis{Kustomization: *walkNode("flux-system", "platform-config"), Reason: "ReconciliationFailed",
		Message: `StorageProfile/longhorn dry-run failed: no matches for kind "StorageProfile" in version "cdi.kubevirt.io/v1beta1"`,
		Missing: []crds.MissingType{{Group: "cdi.kubevirt.io", Kind: "StorageProfile", GroupKnown: true, Versions: []string{"v1beta1"}, Plural: "storageprofiles",
			CRDName: "storageprofiles.cdi.kubevirt.io", BundleFile: "bootstrap/crds/storageprofiles.cdi.kubevirt.io.yaml", Objects: []crds.ObjectRef{{Kind: "StorageProfile", Name: "longhorn"}}}}}
	return Plan{Source: "cluster https://127.0.0.1:6443 (context homelab)", Steps: []wait.PlanStep{
		{Node: *walkNode("infra", "base"), Tier: 0, Action: wait.PlanNone, Passive: true, Why: "outside the selection; Ready at " + rev, Revision: rev},
		{Node: *walkNode("flux-system", "flux-system"), Tier: 0, Action: wait.PlanNone, Why: "already Ready at " + rev, Revision: rev},
		{Node: *walkNode("flux-system", "platform-config"), Tier: 1, Action: wait.PlanReconcile, Revision: rev,
			Why: `not Ready (ReconciliationFailed): StorageProfile/longhorn dry-run failed: no matches for kind "StorageProfile" in version "cdi.kubevirt.io/v1beta1"`,
			Deadlock: &wait.PlanDeadlock{Diagnosis: d, Resolvable: true, Remediate: true,
				Create: []wait.PlanCRD{{Name: "storageprofiles.cdi.kubevirt.io", File: "bootstrap/crds/storageprofiles.cdi.kubevirt.io.yaml"}},
				Proof:  wait.Proof{Kind: wait.ProofCertain, Reason: "nothing can create the missing CRDs: no CDI.cdi.kubevirt.io object exists (trigger from the catalog's containerized-data-importer entry), and every Kustomization not Ready waits on flux-system/platform-config"}}},
		{Node: *walkNode("flux-system", "apps-vms"), Tier: 2, Action: wait.PlanResume, Revision: rev, Why: "suspended; not Ready (DependencyNotReady): dependency 'flux-system/platform-config' is not ready"},
		{Node: *walkNode("flux-system", "legacy"), Tier: 2, Action: wait.PlanSkip, Why: "suspended, and --no-unsuspend: what depends on it is blocked"},
	}}
}

// TestPrintPlan: the text plan as `terraform plan` prints one (a header,
// each node with what and why, the deadlock and its CRDs, a closing
// count), and the JSON lines, byte for byte.
func TestPrintPlan(t *testing.T) {
	unresolvable := planFixture()
	dl := *unresolvable.Steps[2].Deadlock
	dl.Resolvable, dl.Create = false, []wait.PlanCRD{}
	dl.Diagnosis.Missing = []crds.MissingType{{Group: "cdi.kubevirt.io", Kind: "StorageProfile", GroupKnown: true, Versions: []string{"v1beta1"}}}
	dl.Proof = wait.Proof{Kind: wait.ProofNoProgress, Reason: "not certain now, so the walk would wait while an operator shows progress, and act on the deadlock after 30s without progress (no-progress), or after 2m0s in all (operator-timeout): a CDI.cdi.kubevirt.io object exists (cdi): its operator may be about to create the CRD"}
	unresolvable.Steps = slices.Clone(unresolvable.Steps)
	unresolvable.Steps[2].Deadlock = &dl
	tests := []struct {
		name string
		plan Plan
	}{
		{"deadlock", planFixture()},
		{"unresolvable", unresolvable},
		{"empty", Plan{Source: "cluster https://127.0.0.1:6443"}},
		{"spoke", spokePlanFixture()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var text bytes.Buffer
			if err := PrintPlan(&text, FormatText, tt.plan); err != nil {
				t.Fatal(err)
			}
			compareGolden(t, filepath.Join("testdata", "plan", tt.name+".golden"), text.Bytes())
		})
	}
	var text bytes.Buffer
	if err := PrintPlan(&text, FormatText, planFixture()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Plan for cluster https://127.0.0.1:6443 (context homelab): 5 Kustomizations in 3 tiers;",
		"+ CustomResourceDefinition/storageprofiles.cdi.kubevirt.io from bootstrap/crds/storageprofiles.cdi.kubevirt.io.yaml, once the deadlock is proven",
		"proof: certain:",
		"Plan: 2 reconciles, 1 resume, 1 CRD to create.",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the text plan lacks %q:\n%s", want, text.String())
		}
	}
	var js bytes.Buffer
	if err := PrintPlan(&js, FormatJSON, planFixture()); err != nil {
		t.Fatal(err)
	}
	compareGolden(t, filepath.Join("testdata", "walk", "plan.json.golden"), js.Bytes())
	if err := PrintPlan(&js, "yaml", planFixture()); err == nil {
		t.Error("PrintPlan accepted yaml")
	}
}

// spokePlanFixture is planFixture with platform-config applying to a
// spoke through its kubeConfig Secret: the kinds are missing there, and
// the CRD would be created there.
func spokePlanFixture() Plan {
	p := planFixture()
	p.Steps = slices.Clone(p.Steps)
	dl := *p.Steps[2].Deadlock
	dl.Spoke = "clusters/spoke-kubeconfig"
	p.Steps[2].Deadlock = &dl
	return p
}

// unreachedPlanFixture is spokePlanFixture with the spoke's Secret
// unread: the hub's view, nothing to create.
func unreachedPlanFixture() Plan {
	p := spokePlanFixture()
	dl := *p.Steps[2].Deadlock
	dl.Spoke, dl.Unreached, dl.Remediate, dl.Create = "", "clusters/spoke-kubeconfig", false, []wait.PlanCRD{}
	p.Steps[2].Deadlock = &dl
	return p
}

// TestPrintPlanNamesTheSpoke: resume --dry-run's text names the spoke
// (its kubeConfig Secret) on every CRD it would pre-apply there, and
// where the kinds are missing, so the operator sees where the walk would
// write; a deadlock on the hub names no spoke; one on a spoke standup
// did not reach says it is judged by the hub's view and creates nothing.
func TestPrintPlanNamesTheSpoke(t *testing.T) {
	const on = " on cluster spoke-kubeconfig (Secret clusters/spoke-kubeconfig)"
	tests := []struct {
		name      string
		plan      Plan
		want      []string
		wantNoOne bool
		wantNot   []string
	}{
		{name: "spoke", plan: spokePlanFixture(), want: []string{
			"+ CustomResourceDefinition/storageprofiles.cdi.kubevirt.io from bootstrap/crds/storageprofiles.cdi.kubevirt.io.yaml" + on + ", once the deadlock is proven",
			"which cluster spoke-kubeconfig (Secret clusters/spoke-kubeconfig) does not serve",
		}},
		{name: "hub", plan: planFixture(), want: []string{
			"+ CustomResourceDefinition/storageprofiles.cdi.kubevirt.io from bootstrap/crds/storageprofiles.cdi.kubevirt.io.yaml, once the deadlock is proven",
			"which the cluster does not serve",
		}, wantNoOne: true},
		{name: "unreached", plan: unreachedPlanFixture(), want: []string{
			"which the hub does not serve",
			"it applies to the cluster of Secret clusters/spoke-kubeconfig, which standup did not read (see stderr): judged by the hub's view, the walk would report it and create nothing, on the hub or there: exit 3",
			"Plan: 2 reconciles, 1 resume, 0 CRDs to create.",
		}, wantNoOne: true, wantNot: []string{"+ CustomResourceDefinition", "--no-remediate"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var text bytes.Buffer
			if err := PrintPlan(&text, FormatText, tt.plan); err != nil {
				t.Fatal(err)
			}
			for _, want := range tt.want {
				if !strings.Contains(text.String(), want) {
					t.Errorf("the text plan lacks %q:\n%s", want, text.String())
				}
			}
			for _, not := range tt.wantNot {
				if strings.Contains(text.String(), not) {
					t.Errorf("the text plan holds %q:\n%s", not, text.String())
				}
			}
			if got := strings.Contains(text.String(), "on cluster "); got == tt.wantNoOne {
				t.Errorf("names a spoke: %v, want %v:\n%s", got, !tt.wantNoOne, text.String())
			}
		})
	}
}

func TestPrintVersion(t *testing.T) {
	v := Version{Version: "v1.2.3", FluxAPIs: []string{"kustomize.toolkit.fluxcd.io/v1", "source.toolkit.fluxcd.io/v1"}, KustomizeController: "v1.7.3 to v1.9.6"}
	text := "standup v1.2.3\nflux API: kustomize.toolkit.fluxcd.io/v1\nflux API: source.toolkit.fluxcd.io/v1\ntested with kustomize-controller: v1.7.3 to v1.9.6\n"
	tests := []struct{ format, want string }{
		{FormatText, text},
		{FormatTable, text},
		{FormatJSON, "{\n  \"version\": \"v1.2.3\",\n  \"fluxAPIs\": [\n    \"kustomize.toolkit.fluxcd.io/v1\",\n    \"source.toolkit.fluxcd.io/v1\"\n  ],\n  \"kustomizeController\": \"v1.7.3 to v1.9.6\"\n}\n"},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		if err := PrintVersion(&out, tt.format, v); err != nil || out.String() != tt.want {
			t.Errorf("PrintVersion(%s) = %q, %v; want %q", tt.format, out.String(), err, tt.want)
		}
	}
}

func TestUseColorNeedsATerminal(t *testing.T) {
	for _, noColor := range []bool{false, true} {
		if UseColor(&bytes.Buffer{}, noColor) {
			t.Errorf("UseColor(buffer, noColor=%v) = true, want false: not a terminal", noColor)
		}
	}
}

package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kubestandup/standup/pkg/check"
)

// checkJSON runs `standup check -o json` with args and decodes the report.
func checkJSON(t *testing.T, res cliResult) (check.Report, map[string]check.Result) {
	t.Helper()
	var r check.Report
	if err := json.Unmarshal([]byte(res.Stdout), &r); err != nil {
		t.Fatalf("check -o json is not JSON: %v\n%s", err, res.Stdout)
	}
	by := map[string]check.Result{}
	for _, c := range r.Checks {
		by[c.Name] = c
	}
	return r, by
}

func TestCheckOnSeedDeadlockThenAfterRepair(t *testing.T) {
	w := seedCluster(t, deadlockRepo, "--requeue-dependency=2s")
	stuck(t, w)

	// Stuck: the checklist names the dry-run deadlock, and exits 1.
	before := runCLI(t, w, "check", "--crds", seedBundle)
	if before.Code != ExitFailure {
		t.Fatalf("check on the stuck cluster: exit %d, want %d\n%s", before.Code, ExitFailure, before.Stdout)
	}
	flat := strings.Join(strings.Fields(before.Stdout), " ")
	for _, want := range []string{
		"✗ dry-run: 1 Kustomization stuck on a dry-run of a missing kind",
		"✗ Kustomization flux-system/platform-config cannot apply",
		"StorageProfile.cdi.kubevirt.io",
		"standup can pre-apply CRD storageprofiles.cdi.kubevirt.io",
		"- controllers: not deployed in-cluster (skipped)",
		"✔ Flux is installed",
		"✔ bundle: " + seedBundle + " holds 1 CRD, valid",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("check output does not say %q:\n%s", want, before.Stdout)
		}
	}
	if !strings.Contains(before.Stderr, "check failed: dry-run") {
		t.Errorf("stderr %q does not name the failed checks", before.Stderr)
	}

	// The merge precondition fails, naming platform-config.
	pre := runCLI(t, w, "check", "--ready", "platform-config", "-o", "json")
	if pre.Code != ExitFailure {
		t.Fatalf("check --ready platform-config on the stuck cluster: exit %d, want %d", pre.Code, ExitFailure)
	}
	r, by := checkJSON(t, pre)
	if r.OK || by["ready"].Status != check.Fail || len(by["ready"].Items) != 1 || by["ready"].Items[0].OK ||
		by["ready"].Items[0].Object == nil || by["ready"].Items[0].Object.Name != "platform-config" {
		t.Errorf("ready check on the stuck cluster: %+v", by["ready"])
	}
	dry := by["dry-run"]
	if dry.Status != check.Fail || len(dry.Items) != 1 || dry.Items[0].Diagnosis == nil ||
		len(dry.Items[0].Diagnosis.Missing) != 1 || dry.Items[0].Diagnosis.Missing[0].Kind != "StorageProfile" {
		t.Errorf("dry-run check does not carry the StorageProfile diagnosis: %+v", dry)
	}

	// Repair, then everything holds.
	if res := runCLI(t, w, "resume", "--crds", seedBundle); res.Code != ExitOK {
		t.Fatalf("resume: exit %d: %v", res.Code, res.Err)
	}
	after := runCLI(t, w, "check", "--crds", seedBundle, "--ready", "platform-config")
	if after.Code != ExitOK || !strings.Contains(after.Stdout, "all checks passed") {
		t.Fatalf("check after repair: exit %d\n%s", after.Code, after.Stdout)
	}
	if !strings.Contains(strings.Join(strings.Fields(after.Stdout), " "), "Kustomization/flux-system/platform-config: Ready at main@sha1:") {
		t.Errorf("check --ready does not show the revision platform-config is Ready at:\n%s", after.Stdout)
	}
	post := runCLI(t, w, "check", "--ready", "flux-system/platform-config", "--ready", "apps-vms", "-o", "json")
	if post.Code != ExitOK {
		t.Fatalf("check -o json after repair: exit %d\n%s", post.Code, post.Stdout)
	}
	r, by = checkJSON(t, post)
	if !r.OK || r.SchemaVersion != 1 || len(by["ready"].Items) != 2 || by["controllers"].Status != check.Skip {
		t.Errorf("report after repair: %+v", r)
	}
	for _, c := range r.Checks {
		if c.Status == check.Fail {
			t.Errorf("check %s failed after repair: %s", c.Name, c.Summary)
		}
	}

	// A name that matches nothing is a failed precondition, not a pass.
	missing := runCLI(t, w, "check", "--ready", "platform-config-cdi")
	if missing.Code != ExitFailure || !strings.Contains(missing.Stdout, `no Kustomization named "platform-config-cdi"`) {
		t.Errorf("check --ready of an absent Kustomization: exit %d\n%s", missing.Code, missing.Stdout)
	}
}

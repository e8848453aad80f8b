package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/wait"
)

// crdsJSON is the crds -o json document as a consumer reads it
// (docs/output.md).
type crdsJSON struct {
	SchemaVersion int    `json:"schemaVersion"`
	Mode          string `json:"mode"`
	DryRun        bool   `json:"dryRun"`
	Bundle        string `json:"bundle"`
	Repairs       []struct {
		Diagnosis  crds.Diagnosis `json:"diagnosis"`
		Resolvable bool           `json:"resolvable"`
		Create     []struct {
			Name, File string
		} `json:"create"`
	} `json:"repairs"`
	CRDs []struct {
		Name, File, State string
	} `json:"crds"`
	Walk *wait.Summary `json:"walk"`
}

// TestCRDsJSONOnAStuckCluster: crds -o json honours -o: a dry run of the
// repair and of --all each print one document naming the stuck
// Kustomization and the CRD, and change nothing; capture -o json names the
// files it wrote.
func TestCRDsJSONOnAStuckCluster(t *testing.T) {
	w := seedCluster(t, deadlockRepo, "--requeue-dependency=2s")
	stuck(t, w)
	beforeCRDs, beforeKS := crdNames(t, w), ksVersions(t, w)

	var repair crdsJSON
	res := runCLI(t, w, "crds", "--dry-run", "-o", "json", "--crds", seedBundle)
	if res.Code != ExitOK {
		t.Fatalf("crds --dry-run -o json: exit %d", res.Code)
	}
	if err := json.Unmarshal([]byte(res.Stdout), &repair); err != nil {
		t.Fatalf("not one JSON document: %v\n%s", err, res.Stdout)
	}
	if repair.SchemaVersion != 1 || repair.Mode != "repair" || !repair.DryRun || len(repair.Repairs) != 1 || repair.Walk != nil || repair.Bundle != seedBundle {
		t.Fatalf("document %+v: want schemaVersion 1, mode repair, a dry run, one repair, no walk, bundle %s", repair, seedBundle)
	}
	r := repair.Repairs[0]
	if r.Diagnosis.Kustomization.Name != "platform-config" || !r.Resolvable || len(r.Create) != 1 || r.Create[0].Name != storageCRD {
		t.Errorf("repair %+v: want platform-config, resolvable by %s", r, storageCRD)
	}

	var all crdsJSON
	res = runCLI(t, w, "crds", "--all", "--dry-run", "-o", "json", "--crds", seedBundle)
	if err := json.Unmarshal([]byte(res.Stdout), &all); err != nil || res.Code != ExitOK {
		t.Fatalf("crds --all --dry-run -o json: exit %d, %v\n%s", res.Code, err, res.Stdout)
	}
	if all.Mode != "all" || len(all.CRDs) != 1 || all.CRDs[0].Name != storageCRD || all.CRDs[0].State != "absent" {
		t.Errorf("document %+v: want %s absent", all, storageCRD)
	}
	if !equalMaps(beforeCRDs, crdNames(t, w)) || !equalMaps(beforeKS, ksVersions(t, w)) {
		t.Error("a dry run changed the cluster")
	}

	out := t.TempDir()
	var capture struct {
		SchemaVersion int      `json:"schemaVersion"`
		Directory     string   `json:"directory"`
		Files         []string `json:"files"`
	}
	res = runCLI(t, w, "crds", "capture", "-o", "json", "--out", out)
	if err := json.Unmarshal([]byte(res.Stdout), &capture); err != nil || res.Code != ExitOK {
		t.Fatalf("crds capture -o json: exit %d, %v\n%s", res.Code, err, res.Stdout)
	}
	if capture.Directory != out || len(capture.Files) != len(dirNames(t, out)) {
		t.Errorf("capture document %+v; the directory holds %v", capture, dirNames(t, out))
	}
	for _, f := range capture.Files {
		if filepath.Dir(f) != out {
			t.Errorf("file %s is not in %s", f, out)
		}
	}
	// The test world installs Flux's CRDs as flux install does, in no
	// inventory: capture leaves them out, and says how many and why.
	for _, f := range dirNames(t, out) {
		if strings.HasSuffix(f, ".toolkit.fluxcd.io.yaml") {
			t.Errorf("capture wrote Flux's own CRD %s", f)
		}
	}
	if !regexp.MustCompile(`left out [1-9][0-9]* of Flux's own CRDs \(API groups \*\.toolkit\.fluxcd\.io, or labelled app\.kubernetes\.io/part-of=flux\): flux install creates them`).MatchString(res.Stderr) {
		t.Errorf("capture's stderr does not say how many of Flux's CRDs it left out, and why:\n%s", res.Stderr)
	}
	if !equalMaps(beforeCRDs, crdNames(t, w)) || !equalMaps(beforeKS, ksVersions(t, w)) {
		t.Error("capture changed the cluster")
	}
}

// TestCRDsDryRunWithoutABundle: crds --dry-run diagnoses without a bundle,
// as check does: it names the stuck Kustomization and the CRD it lacks,
// says a bundle is needed to repair it, and exits 3 (a deadlock no bundle
// resolves); with nothing stuck it exits 0. Repairing still takes a
// bundle (exit 2). Nothing is changed.
func TestCRDsDryRunWithoutABundle(t *testing.T) {
	w := seedCluster(t, deadlockRepo, "--requeue-dependency=2s")
	stuck(t, w)
	beforeCRDs, beforeKS := crdNames(t, w), ksVersions(t, w)

	res := runCLI(t, w, "crds", "--dry-run")
	if res.Code != ExitDeadlock {
		t.Fatalf("crds --dry-run without a bundle: exit %d, want %d", res.Code, ExitDeadlock)
	}
	for _, want := range []string{"Kustomization flux-system/platform-config cannot apply", "StorageProfile.cdi.kubevirt.io", "no CRD bundle (--crds DIR, or bootstrap/crds): the diagnosis above needs one to repair"} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("stdout does not say %q:\n%s", want, res.Stdout)
		}
	}
	if want := "Kustomization/flux-system/platform-config: no CRD bundle to supply StorageProfile.cdi.kubevirt.io"; !strings.Contains(res.Stderr, want) {
		t.Errorf("stderr does not say %q:\n%s", want, res.Stderr)
	}

	var doc crdsJSON
	res = runCLI(t, w, "crds", "--dry-run", "-o", "json")
	if err := json.Unmarshal([]byte(res.Stdout), &doc); err != nil || res.Code != ExitDeadlock {
		t.Fatalf("crds --dry-run -o json without a bundle: exit %d, %v\n%s", res.Code, err, res.Stdout)
	}
	if doc.Bundle != "" || len(doc.Repairs) != 1 || doc.Repairs[0].Resolvable || len(doc.Repairs[0].Diagnosis.Missing) != 1 || doc.Repairs[0].Diagnosis.Missing[0].Kind != "StorageProfile" {
		t.Errorf("document %+v: want no bundle, one repair not resolvable, missing StorageProfile", doc)
	}

	// Nothing stuck in a namespace without Kustomizations: exit 0.
	res = runCLI(t, w, "crds", "--dry-run", "-n", "default")
	if res.Code != ExitOK || !strings.Contains(res.Stdout, "nothing to do") || strings.Contains(res.Stdout, "no CRD bundle") {
		t.Errorf("crds --dry-run -n default: exit %d, stdout %q; want 0, nothing to do", res.Code, res.Stdout)
	}
	for _, args := range [][]string{{"crds"}, {"crds", "--all", "--dry-run"}} {
		if res := runCLI(t, w, args...); res.Code != ExitUsage || !strings.Contains(res.Stderr, "no CRD bundle") {
			t.Errorf("%v without a bundle: exit %d, want %d", args, res.Code, ExitUsage)
		}
	}
	if !equalMaps(beforeCRDs, crdNames(t, w)) || !equalMaps(beforeKS, ksVersions(t, w)) {
		t.Error("a dry run changed the cluster")
	}
}

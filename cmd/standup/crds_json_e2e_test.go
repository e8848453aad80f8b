package main

import (
	"encoding/json"
	"path/filepath"
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
	if repair.SchemaVersion != 1 || repair.Mode != "repair" || !repair.DryRun || len(repair.Repairs) != 1 || repair.Walk != nil {
		t.Fatalf("document %+v: want schemaVersion 1, mode repair, a dry run, one repair, no walk", repair)
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
}

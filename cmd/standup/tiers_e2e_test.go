package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kubestandup/standup/internal/testenv"
)

// tiersJSON is the part of the tiers JSON schema (docs/output.md) the tests read.
type tiersJSON struct {
	Tiers []struct {
		Tier  int `json:"tier"`
		Nodes []struct {
			Namespace string `json:"namespace"`
			Name      string `json:"name"`
		} `json:"nodes"`
	} `json:"tiers"`
	Missing []json.RawMessage `json:"missing"`
}

func tierNames(t *testing.T, stdout string) []string {
	t.Helper()
	var doc tiersJSON
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("tiers -o json: %v\n%s", err, stdout)
	}
	var out []string
	for _, tier := range doc.Tiers {
		var names []string
		for _, n := range tier.Nodes {
			names = append(names, n.Namespace+"/"+n.Name)
		}
		out = append(out, strings.Join(names, " "))
	}
	return out
}

func TestTiersLive(t *testing.T) {
	graph := graphOf8(true)
	w := world(t, "infra", "apps")
	create(t, w, graph...)
	res := runCLI(t, w, "tiers", "-o", "json")
	if res.Code != ExitOK {
		t.Fatalf("exit %d: %v", res.Code, res.Err)
	}
	want := []string{
		"infra/base infra/side",
		"infra/left infra/right",
		"infra/join",
		"apps/web apps/worker",
		"apps/frontend",
		"apps/edge",
	}
	if got := tierNames(t, res.Stdout); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("tiers\n got %q\nwant %q", got, want)
	}
}

func TestTiersLiveReportsAbsentDependencies(t *testing.T) {
	graph := graphOf8(true)
	w := world(t, "infra", "apps")
	// Only the apps tiers exist: the root has not created infra yet.
	var partial []testenv.KS
	for _, k := range graph {
		if k.Namespace == "apps" {
			partial = append(partial, k)
		}
	}
	create(t, w, partial...)
	res := runCLI(t, w, "tiers", "-o", "json")
	if res.Code != ExitInvalidGraph {
		t.Fatalf("exit %d, want %d", res.Code, ExitInvalidGraph)
	}
	for _, absent := range []string{"Kustomization/infra/join", "Kustomization/infra/side"} {
		if !strings.Contains(res.Stderr, absent) {
			t.Errorf("stderr does not name the absent %s:\n%s", absent, res.Stderr)
		}
	}
	res = runCLI(t, w, "tiers", "-o", "json", "--allow-missing")
	if res.Code != ExitOK {
		t.Fatalf("--allow-missing: exit %d", res.Code)
	}
	var doc tiersJSON
	if err := json.Unmarshal([]byte(res.Stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Missing) != 3 {
		t.Errorf("missing = %d entries, want 3 (web->join, worker->join, worker->side)", len(doc.Missing))
	}
}

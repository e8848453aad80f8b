package benchdoc

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"
)

func TestGoalsOfDoc(t *testing.T) {
	doc := "# page\n| a / b | 9.9 | ≥ 1 | yes |\n" + // outside a block: not a goal
		"<!-- bench:uniform begin -->\n" +
		"Measured at `abc1234` on 2026-12-02 with `x`.\n" +
		"| ratio, per run | median (min–max) | goal | met |\n|---|---|---|---|\n" +
		"| standup / critical-path bound | 1.22 (1.19–1.23) | – | – |\n" +
		"| flux alone / standup | 61.00 (58.73–66.10) | ≥ 10 | yes |\n" +
		"standup, per run: on the busiest one (x) 1 (1–1) patches to the Kustomization, goal ≤ 2: yes, and 1 writes; " +
		"reads beyond one list and one watch per kind 0, goal 0: **no**; peak RSS 85.1 (84.3–88.2) MiB, goal < 150 MiB: no.\n" +
		"<!-- bench:uniform end -->\n" +
		"<!-- bench:scale begin -->\nMeasured at `def5678` on 2026-12-02.\n" +
		"| flux tuned / standup | 1.26 | ≥ 1.4 | **no** |\n" +
		"HelmRelease chain of 5: flux alone 120.7 s, standup 2.4 s, flux/standup 49.7 (goal ≥ 10: yes)\n" +
		"<!-- bench:scale end -->\n" +
		"<!-- bench:goals begin -->\n| uniform | x ≥ 1 | 1.0 | yes | `abc` |\n<!-- bench:goals end -->\n"
	got, err := GoalsOfDoc(doc)
	if err != nil {
		t.Fatal(err)
	}
	want := []GoalRow{
		{"uniform", "abc1234", "flux alone / standup ≥ 10", "61.00 (58.73–66.10)", "yes"},
		{"uniform", "abc1234", "patches to the busiest Kustomization ≤ 2", "1 (1–1)", "yes"},
		{"uniform", "abc1234", "standup's peak RSS < 150 MiB", "85.1 (84.3–88.2)", "no"},
		{"scale", "def5678", "flux tuned / standup ≥ 1.4", "1.26", "no"},
		{"scale", "def5678", "flux alone / standup ≥ 10", "49.7", "yes"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("GoalsOfDoc =\n%+v\nwant\n%+v", got, want)
	}
	if _, err := GoalsOfDoc("<!-- bench:a begin -->\n<!-- bench:b begin -->\n"); err == nil {
		t.Error("a block inside a block was not an error")
	}
}

// TestBenchmarksPageGoalsAreDerived: the goals table of docs/benchmarks.md
// is exactly what its scenario blocks state, so a re-run of one scenario
// that does not also rebuild the goals table fails here.
func TestBenchmarksPageGoalsAreDerived(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "..", "docs", "benchmarks.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := GoalsOfDoc(string(page))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 10 {
		t.Fatalf("read %d goals from the page: its blocks are not the script's", len(rows))
	}
	m := regexp.MustCompile(`(?s)<!-- bench:goals begin -->\n(.*?)<!-- bench:goals end -->`).FindSubmatch(page)
	if m == nil {
		t.Fatal("docs/benchmarks.md has no bench:goals block")
	}
	if want := GoalsMarkdown(rows); string(m[1]) != want {
		t.Errorf("the goals block differs from its scenario blocks: run go run ./internal/benchdoc/goaltable docs/benchmarks.md (scripts/bench-coldstart.sh --write-doc does)\nhave:\n%s\nwant:\n%s", m[1], want)
	}
}

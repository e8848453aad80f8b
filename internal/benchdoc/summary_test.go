package benchdoc

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"
)

func TestSummaryOfDoc(t *testing.T) {
	doc := "| flux alone | 9.9 | 1/1 |\n" + // outside a block: not a row
		"<!-- bench:deadlock begin -->\n" +
		"### deadlock: the seed's deadlock, a fresh world per contender (3 runs)\n\n" +
		"Measured at `abc1234` on 2026-12-02 with `x`.\n\n" +
		"| contender | wall time to all Ready, s: median (min–max) | converged |\n|---|---|---|\n" +
		"| flux alone | ≥ 180.0 (180.0–180.0) | 0/3; did not converge: 5/7 Ready at the 3m0s cap |\n" +
		"| tier script | ≥ 180.0 (180.0–180.0) | 0/3; did not converge: 5/7 Ready at the 3m0s cap |\n" +
		"| tier script + crds --all | 63.7 (63.7–63.7) | 3/3 |\n" +
		"| standup | 4.7 (4.3–5.9) | 3/3 |\n" +
		"| critical-path bound | 3.6 (3.4–3.9) | – |\n\n" +
		"| ratio, per run | median (min–max) | goal | met |\n|---|---|---|---|\n" +
		"| standup / critical-path bound | 1.25 (1.21–1.64) | ≤ 1.5 | yes |\n" +
		"<!-- bench:deadlock end -->\n" +
		"<!-- bench:scale begin -->\n" +
		"### scale: 15 × 20, fan-in 2 (benchgraph.Scale(1), spec seed 5) (1 run)\n\n" +
		"Measured at `def5678` on 2026-12-02.\n\n" +
		"| flux alone | 223.5 | 1/1 |\n| flux tuned | 172.8 | 1/1 |\n| standup | 137.5 | 1/1 |\n" +
		"| critical-path bound | 59.1 | – |\n| throughput bound | 136.0 | – |\n| larger bound | 136.0 | – |\n" +
		"<!-- bench:scale end -->\n" +
		"<!-- bench:chain5 begin -->\nMeasured at `0123abc` on 2026-12-02.\n\n" +
		"chain of 5: flux alone 120.3 s, standup 1.5 s, flux/standup 81.7\n" +
		"<!-- bench:chain5 end -->\n" +
		"<!-- bench:walker begin -->\nMeasured at `0123abc`.\n| `batched/n=5000` | 11.0 (10.9–11.2) | 33.5 | 105248 |\n<!-- bench:walker end -->\n"
	got, err := SummaryOfDoc(doc)
	if err != nil {
		t.Fatal(err)
	}
	stuck := "≥ 180.0 s (0/3 converged)"
	want := []SummaryRow{
		{Block: "deadlock", Graph: "the seed's deadlock, a fresh world per contender", Commit: "abc1234", Runs: "3 runs",
			Flux: stuck, Tuned: "–", Script: stuck + "; after `crds --all`: 63.7 s", Standup: "4.7 s", Bound: "3.6 s"},
		{Block: "scale", Graph: "15 × 20, fan-in 2", Commit: "def5678", Runs: "1 run",
			Flux: "223.5 s", Tuned: "172.8 s", Script: "–", Standup: "137.5 s", Bound: "136.0 s"},
		{Block: "chain5", Graph: "chain of 5", Commit: "0123abc", Flux: "120.3 s", Tuned: "–", Script: "–", Standup: "1.5 s", Bound: "–"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SummaryOfDoc =\n%+v\nwant\n%+v", got, want)
	}
	if _, err := SummaryOfDoc("<!-- bench:a begin -->\nno end\n"); err == nil {
		t.Error("a block without its end marker was not an error")
	}
}

// TestReadmeSummaryIsDerived: the README's summary of the benchmarks is
// exactly what the scenario blocks of docs/benchmarks.md state, so a
// re-run of a scenario that does not also rebuild the README fails here.
func TestReadmeSummaryIsDerived(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "..", "docs", "benchmarks.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := SummaryOfDoc(string(page))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 5 {
		t.Fatalf("read %d graphs from docs/benchmarks.md: its blocks are not the script's", len(rows))
	}
	m := regexp.MustCompile(`(?s)<!-- bench:summary begin -->\n(.*?)<!-- bench:summary end -->`).FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md has no bench:summary block")
	}
	if want := SummaryMarkdown(rows); string(m[1]) != want {
		t.Errorf("README's summary differs from the blocks of docs/benchmarks.md: run go run ./internal/benchdoc/summarytable docs/benchmarks.md (scripts/bench-coldstart.sh --write-doc does)\nhave:\n%s\nwant:\n%s", m[1], want)
	}
}

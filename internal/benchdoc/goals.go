package benchdoc

import (
	"bufio"
	"fmt"
	"regexp"
	"strings"
)

// GoalRow is one goal of one scenario as its generated block in
// docs/benchmarks.md states it.
type GoalRow struct {
	Block    string // the block's marker name, such as "uniform"
	Commit   string // the commit its stamp names
	Goal     string // "flux alone / standup ≥ 10"
	Measured string // "61.00 (58.73–66.10)"
	Met      string // "yes" or "no"
}

var (
	blockBegin = regexp.MustCompile(`^<!-- bench:([a-z0-9-]+) begin -->$`)
	blockEnd   = regexp.MustCompile(`^<!-- bench:([a-z0-9-]+) end -->$`)
	stampRE    = regexp.MustCompile("^Measured at `([0-9a-f]+)`")
	// | flux alone / standup | 61.00 (58.73–66.10) | ≥ 10 | yes |
	ratioRow = regexp.MustCompile(`^\| ([^|]+ / [^|]+) \| ([^|]+) \| ([≥≤] [0-9.]+) \| \**(yes|no)\** \|$`)
	// the goals Scenario.writeUsage states in prose.
	usageGoals = []struct {
		name string
		re   *regexp.Regexp
	}{
		{"patches to the busiest Kustomization ≤ 2", regexp.MustCompile(`([0-9.]+(?: \([0-9.–]+\))?) patches to the Kustomization, goal ≤ 2: (yes|no)`)},
		{"reads beyond one list and one watch per kind = 0", regexp.MustCompile(`per kind ([0-9.]+(?: \([0-9.–]+\))?), goal 0: (yes|no)`)},
		{"standup's peak RSS < %s MiB", regexp.MustCompile(`peak RSS ([0-9.]+(?: \([0-9.–]+\))?) MiB, goal < ([0-9.]+) MiB: (yes|no)`)},
		{"flux alone / standup ≥ %s", regexp.MustCompile(`flux/standup ([0-9.]+) \(goal ≥ ([0-9.]+): (yes|no)\)`)},
		{"standup's slowest run ≤ %s", regexp.MustCompile(`standup's slowest run took ([0-9.]+ s) \(goal ≤ ([^:]+): (yes|no)\)`)},
	}
)

// GoalsOfDoc reads every goal stated in the generated blocks of a
// benchmarks page, in the order of the page. It reads what the blocks say,
// so the goals table built from it can never disagree with them.
func GoalsOfDoc(doc string) ([]GoalRow, error) {
	var rows []GoalRow
	block, commit := "", ""
	sc := bufio.NewScanner(strings.NewReader(doc))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if m := blockBegin.FindStringSubmatch(line); m != nil {
			if block != "" {
				return nil, fmt.Errorf("line %d: block %s begins inside block %s", n, m[1], block)
			}
			block, commit = m[1], ""
			continue
		}
		if m := blockEnd.FindStringSubmatch(line); m != nil {
			block = ""
			continue
		}
		if block == "" || block == "goals" {
			continue
		}
		if m := stampRE.FindStringSubmatch(line); m != nil {
			commit = m[1]
		}
		if m := ratioRow.FindStringSubmatch(line); m != nil {
			rows = append(rows, GoalRow{Block: block, Commit: commit, Goal: m[1] + " " + m[3], Measured: m[2], Met: m[4]})
			continue
		}
		for _, g := range usageGoals {
			m := g.re.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			name := g.name
			if len(m) == 4 {
				name = fmt.Sprintf(g.name, m[2])
			}
			rows = append(rows, GoalRow{Block: block, Commit: commit, Goal: name, Measured: m[1], Met: m[len(m)-1]})
		}
	}
	if block != "" {
		return nil, fmt.Errorf("block %s has no end marker", block)
	}
	return rows, sc.Err()
}

// GoalsMarkdown is the goals table of docs/benchmarks.md: one row per goal
// of every generated block, each naming the commit it was measured at.
func GoalsMarkdown(rows []GoalRow) string {
	var b strings.Builder
	b.WriteString("Built by `scripts/bench-coldstart.sh --write-doc` (`go run ./internal/benchdoc/goaltable`) from the tables above: each row is what its scenario's block states.\n\n")
	b.WriteString("| scenario | goal | measured: median (min–max) | met | at |\n|---|---|---|---|---|\n")
	for _, r := range rows {
		met := r.Met
		if met == "no" {
			met = "**no**"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | `%s` |\n", r.Block, r.Goal, r.Measured, met, r.Commit)
	}
	return b.String()
}

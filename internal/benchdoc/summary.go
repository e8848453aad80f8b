package benchdoc

import (
	"bufio"
	"fmt"
	"regexp"
	"strings"
)

// SummaryRow is one graph of the README's summary table: the median wall
// time of each contender as a generated block of docs/benchmarks.md states
// it, with its unit ("120.6 s"), or "–" where the block has none.
type SummaryRow struct {
	Block   string // the block's marker name, such as "uniform"
	Graph   string // what the block's heading says the graph is
	Commit  string // the commit its stamp names
	Runs    string // "3 runs", from the heading; "" for the chains
	Flux    string
	Tuned   string
	Script  string
	Standup string
	Bound   string // the larger bound where the block has one, else the critical-path bound
}

var (
	// ### uniform: 5 × 2 lattice, … (benchgraph.Uniform) (3 runs)
	headingRE = regexp.MustCompile(`^### ([a-z0-9-]+): (.*?)(?: \(benchgraph\..*\))? \(([0-9]+ runs?)\)$`)
	// | flux alone | 120.6 (120.6–120.6) | 3/3 |
	contenderRow = regexp.MustCompile(`^\| ([a-z][a-z -]*(?: \+ [^|]+)?) \| (≥ )?([0-9.]+)(?: \([0-9.–]+\))? \| ([^|]+) \|$`)
	// chain of 5: flux alone 120.3 s, standup 1.5 s, flux/standup 81.7
	chainLine    = regexp.MustCompile(`^([A-Za-z][^:]*): flux alone ([0-9.]+ s), standup ([0-9.]+ s)`)
	convergedAll = regexp.MustCompile(`^([0-9]+)/([0-9]+)$`)
)

// SummaryOfDoc reads, from the generated blocks of a benchmarks page, one
// row per scenario block with a table of contenders and one per chain of
// the chain block, in the order of the page. Blocks without contenders
// (the goals, the walker, the render) are passed over.
func SummaryOfDoc(doc string) ([]SummaryRow, error) {
	var rows []SummaryRow
	var cur *SummaryRow
	block, commit := "", ""
	sc := bufio.NewScanner(strings.NewReader(doc))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if m := blockBegin.FindStringSubmatch(line); m != nil {
			if block != "" {
				return nil, fmt.Errorf("line %d: block %s begins inside block %s", n, m[1], block)
			}
			block, commit, cur = m[1], "", nil
			continue
		}
		if blockEnd.MatchString(line) {
			if cur != nil && cur.Standup != "" {
				rows = append(rows, *cur)
			}
			block, cur = "", nil
			continue
		}
		if block == "" {
			continue
		}
		if m := stampRE.FindStringSubmatch(line); m != nil {
			commit = m[1]
			if cur != nil {
				cur.Commit = commit
			}
		}
		if m := headingRE.FindStringSubmatch(line); m != nil {
			cur = &SummaryRow{Block: block, Graph: m[2], Commit: commit, Runs: m[3], Flux: "–", Tuned: "–", Script: "–", Standup: "", Bound: "–"}
			continue
		}
		if m := chainLine.FindStringSubmatch(line); m != nil {
			rows = append(rows, SummaryRow{Block: block, Graph: m[1], Commit: commit, Flux: m[2], Tuned: "–", Script: "–", Standup: m[3], Bound: "–"})
			continue
		}
		if m := contenderRow.FindStringSubmatch(line); m != nil && cur != nil {
			cur.add(m[1], m[2]+m[3]+" s", strings.TrimSpace(m[4]))
		}
	}
	if block != "" {
		return nil, fmt.Errorf("block %s has no end marker", block)
	}
	return rows, sc.Err()
}

// add puts one contender's median into its column. A contender that did
// not converge in every run says so; "tier script + crds --all" joins the
// tier script's cell.
func (r *SummaryRow) add(contender, median, converged string) {
	cell := median
	if converged != "–" {
		verdict, _, _ := strings.Cut(converged, ";")
		if m := convergedAll.FindStringSubmatch(verdict); m == nil || m[1] != m[2] {
			cell += " (" + verdict + " converged)"
		}
	}
	switch contender {
	case "flux alone":
		r.Flux = cell
	case "flux tuned":
		r.Tuned = cell
	case "tier script":
		r.Script = cell
	case "standup":
		r.Standup = cell
	case "larger bound":
		r.Bound = cell
	case "critical-path bound":
		if r.Bound == "–" { // a larger bound, where the block has one, follows it
			r.Bound = cell
		}
	default:
		base, extra, ok := strings.Cut(contender, " + ")
		if !ok {
			return // the throughput bound: the larger bound names it
		}
		into := map[string]*string{"flux alone": &r.Flux, "flux tuned": &r.Tuned, "tier script": &r.Script}[base]
		if into != nil {
			*into += "; after `" + extra + "`: " + cell
		}
	}
}

// SummaryMarkdown is the summary table of the README: the median wall time
// of every contender on every graph of docs/benchmarks.md, each row naming
// the commit it was measured at.
func SummaryMarkdown(rows []SummaryRow) string {
	var b strings.Builder
	b.WriteString("Built by `scripts/bench-coldstart.sh --write-doc` (`go run ./internal/benchdoc/summarytable docs/benchmarks.md`) from the generated blocks of [docs/benchmarks.md](docs/benchmarks.md): wall time to all Ready, the median over the runs; ≥ marks a contender stopped at its cap; the bound is the critical-path bound, or the larger of it and the throughput bound where the block has one.\n\n")
	b.WriteString("| graph | Flux alone | Flux tuned | tier script | standup | bound | at |\n|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		at := "`" + r.Commit + "`"
		if r.Runs != "" {
			at += ", " + r.Runs
		}
		fmt.Fprintf(&b, "| **%s**: %s | %s | %s | %s | %s | %s | %s |\n", r.Block, r.Graph, r.Flux, r.Tuned, r.Script, r.Standup, r.Bound, at)
	}
	return b.String()
}

package bench

import (
	"fmt"
	"strings"
	"time"

	"github.com/kubestandup/standup/pkg/wait"
)

// Contenders, by the name the results table shows. The three bounds are
// rows too: the critical path, the throughput bound (the sum of the
// reconcile durations over kustomize-controller's workers) and the larger
// of the two, which is what no walk can beat.
const (
	FluxAlone   = "flux alone"
	FluxTuned   = "flux tuned"
	TierScript  = "tier script"
	ScriptCRDs  = "tier script + crds --all"
	Standup     = "standup"
	Bound       = "critical-path bound"
	Throughput  = "throughput bound"
	LargerBound = "larger bound"
)

// metricKeys are the short names b.ReportMetric units are built from.
var metricKeys = map[string]string{
	FluxAlone: "flux", FluxTuned: "tuned", TierScript: "script", ScriptCRDs: "script+crds", Standup: "standup",
	Bound: "bound", Throughput: "throughput", LargerBound: "max_bound",
}

// Measurement is one contender's result in one run.
type Measurement struct {
	// Elapsed is the wall time from the first mutation to all Ready, or to
	// the cap when it did not converge.
	Elapsed time.Duration
	// Converged is true when every Kustomization was Ready within the cap.
	Converged bool
	// Ready and Total count the Kustomizations at the end.
	Ready, Total int
}

// StandupUsage is what one standup run cost.
type StandupUsage struct {
	Requests Requests
	// MaxRSS is the process's peak resident set, in bytes.
	MaxRSS int64
	// Mutations is the summary's count of writes standup decided on.
	Mutations int
	// WritesPerNode counts those writes by Kustomization ("namespace/name"),
	// a CRD pre-applied for it included; PatchesPerNode only the writes to
	// the Kustomization itself.
	WritesPerNode, PatchesPerNode map[string]int
	Kustomizations                int
	// Diagnosis is when standup diagnosed a deadlock (nil: it proved none).
	Diagnosis *DiagnosisTiming
	// Limit is what standup's summary said held the walk back.
	Limit *wait.Limit
}

// Run is one run of a scenario: every contender from the same cold state.
type Run struct {
	// Results holds each contender's measurement, the bound included.
	Results   map[string]Measurement
	BoundPath []string
	Standup   StandupUsage
	// Durations are the reconcile durations kustomize-controller logged in
	// standup's turn (each Kustomization's first successful one, keyed as
	// the bound keys them), and OperatorLatency the runtime operator's in
	// that turn: what the run teaches rehearse (BenchmarkRehearse).
	Durations       map[string]time.Duration
	OperatorLatency time.Duration
}

// Ratio is one ratio the table reports, Num's time over Den's, with the
// issue's goal for it when Op is "≥" or "≤".
type Ratio struct {
	Num, Den string
	Op       string
	Target   float64
}

// Scenario is one scenario's runs, in the order they ran, and its goals.
type Scenario struct {
	Name, Title string
	Cap         time.Duration
	// Contenders lists the table's rows in order.
	Contenders []string
	Ratios     []Ratio
	// StandupMax is the goal for standup's own wall time (0: none).
	StandupMax time.Duration
	// MaxRSSMiB is the goal for standup's peak RSS in every run (0: none).
	MaxRSSMiB float64
	// Checkout runs standup with --path of the graph's checkout
	// (benchgraph.Graph.WriteCheckout), as an operator who has the
	// repository would: it tells standup which reconciles wait on a
	// controller. The other contenders do not read it.
	Checkout bool
	Runs     []Run
}

// Times returns a contender's elapsed seconds over the runs that measured
// it, and whether any of them did not converge (so the values are lower
// bounds).
func (s Scenario) Times(contender string) (xs []float64, atLeast bool) {
	for _, r := range s.Runs {
		if m, ok := r.Results[contender]; ok {
			xs = append(xs, m.Elapsed.Seconds())
			atLeast = atLeast || !m.Converged
		}
	}
	return xs, atLeast
}

// RatioValues returns r's value in each run where both sides were measured and
// the denominator converged, and whether any numerator did not converge.
func (s Scenario) RatioValues(r Ratio) (xs []float64, atLeast bool) {
	for _, run := range s.Runs {
		num, ok1 := run.Results[r.Num]
		den, ok2 := run.Results[r.Den]
		if !ok1 || !ok2 || !den.Converged || den.Elapsed <= 0 {
			continue
		}
		xs = append(xs, num.Elapsed.Seconds()/den.Elapsed.Seconds())
		atLeast = atLeast || !num.Converged
	}
	return xs, atLeast
}

// Met reports whether the ratio's median meets its goal; ok is false when
// the ratio has no goal or no value.
func (s Scenario) Met(r Ratio) (met, ok bool) {
	xs, atLeast := s.RatioValues(r)
	if r.Op == "" || len(xs) == 0 {
		return false, false
	}
	med := Summarize(xs).Median
	if r.Op == "≥" {
		return med >= r.Target, true
	}
	return med <= r.Target && !atLeast, true
}

// Metrics returns the numbers for b.ReportMetric: each contender's median
// seconds, each ratio's median, and standup's writes per Kustomization (on
// average and on the busiest one), extra reads (see Requests.ExtraReadsWithin)
// and peak RSS (the worst run).
func (s Scenario) Metrics() map[string]float64 {
	out := map[string]float64{}
	for _, c := range s.Contenders {
		if xs, _ := s.Times(c); len(xs) > 0 {
			out[metricKeys[c]+"_s"] = Summarize(xs).Median
		}
	}
	for _, r := range s.Ratios {
		if xs, _ := s.RatioValues(r); len(xs) > 0 {
			out[metricKeys[r.Num]+"/"+metricKeys[r.Den]] = Summarize(xs).Median
		}
	}
	u := s.usage()
	if len(u.writes) > 0 {
		out["writes/ks"] = Summarize(u.writes).Max
		out["max_writes/ks"] = Summarize(u.most).Max
		out["max_patches/ks"] = Summarize(u.mostPatches).Max
		out["extra_reads"] = Summarize(u.extra).Max
		out["rss_MiB"] = Summarize(u.rss).Max
	}
	return out
}

type usageStats struct{ writes, most, mostPatches, extra, rss, mutations []float64 }

func (s Scenario) usage() usageStats {
	var u usageStats
	for _, r := range s.Runs {
		if r.Standup.Requests == nil || r.Standup.Kustomizations == 0 {
			continue
		}
		u.writes = append(u.writes, float64(r.Standup.Requests.Writes())/float64(r.Standup.Kustomizations))
		_, most := MostWrites(r.Standup.WritesPerNode)
		u.most = append(u.most, float64(most))
		_, patches := MostWrites(r.Standup.PatchesPerNode)
		u.mostPatches = append(u.mostPatches, float64(patches))
		u.extra = append(u.extra, float64(r.Standup.Requests.ExtraReadsWithin(r.Results[Standup].Elapsed)))
		u.rss = append(u.rss, float64(r.Standup.MaxRSS)/(1<<20))
		u.mutations = append(u.mutations, float64(r.Standup.Mutations))
	}
	return u
}

// Markdown renders the scenario's tables: wall times, ratios with their
// goals, and standup's requests and memory.
func (s Scenario) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s: %s (%d run%s)\n\n", s.Name, s.Title, len(s.Runs), plural(len(s.Runs)))
	b.WriteString("| contender | wall time to all Ready, s: median (min–max) | converged |\n|---|---|---|\n")
	for _, c := range s.Contenders {
		xs, atLeast := s.Times(c)
		fmt.Fprintf(&b, "| %s | %s%s | %s |\n", c, geq(atLeast), Summarize(xs).Format(1), s.converged(c))
	}
	b.WriteString("\n| ratio, per run | median (min–max) | goal | met |\n|---|---|---|---|\n")
	for _, r := range s.Ratios {
		xs, atLeast := s.RatioValues(r)
		goal, met := "–", "–"
		if r.Op != "" {
			goal = fmt.Sprintf("%s %g", r.Op, r.Target)
		}
		if m, ok := s.Met(r); ok {
			met = yesNo(m)
		}
		fmt.Fprintf(&b, "| %s / %s | %s%s | %s | %s |\n", r.Num, r.Den, geq(atLeast), Summarize(xs).Format(2), goal, met)
	}
	s.writeUsage(&b)
	return b.String()
}

func (s Scenario) converged(c string) string {
	if c == Bound || c == Throughput || c == LargerBound {
		return "–"
	}
	n, total, note := 0, 0, ""
	for _, r := range s.Runs {
		m, ok := r.Results[c]
		if !ok {
			continue
		}
		total++
		if m.Converged {
			n++
		} else if note == "" {
			note = fmt.Sprintf("; did not converge: %d/%d Ready at the %s cap", m.Ready, m.Total, s.Cap)
		}
	}
	return fmt.Sprintf("%d/%d%s", n, total, note)
}

func (s Scenario) writeUsage(b *strings.Builder) {
	u := s.usage()
	if len(u.writes) == 0 {
		return
	}
	last := s.Runs[len(s.Runs)-1]
	most := Summarize(u.most)
	g := Summarize(u.extra)
	node, _ := MostWrites(last.Standup.WritesPerNode)
	patches := Summarize(u.mostPatches)
	fmt.Fprintf(b, "\nstandup, per run: writes per Kustomization %s on average; on the busiest one (%s in the last run) %s patches to the Kustomization, goal ≤ 2: %s, "+
		"and %s writes counting the CRDs pre-applied for it; "+
		"reads beyond one list and one watch per kind %s, goal 0: %s; mutations in its summary %s; peak RSS %s MiB%s.\n",
		Summarize(u.writes).Format(2), node, patches.Format(0), yesNo(patches.Max <= 2), most.Format(0), g.Format(0), yesNo(g.Max == 0),
		Summarize(u.mutations).Format(0), Summarize(u.rss).Format(1), s.rssGoal(u))
	if s.StandupMax > 0 {
		xs, _ := s.Times(Standup)
		fmt.Fprintf(b, "standup's slowest run took %.1f s (goal ≤ %s: %s).\n", Summarize(xs).Max, s.StandupMax, yesNo(Summarize(xs).Max <= s.StandupMax.Seconds()))
	}
	fmt.Fprintf(b, "Requests of the last run, by verb: %s; in detail: %s.\n", last.Standup.Requests, last.Standup.Requests.Detail())
	if l := last.Standup.Limit; l != nil {
		fmt.Fprintf(b, "What standup's summary of the last run named as the limit: %s (critical path %.1f s, %d reconciles, %.1f s of work on %d workers seen: %.1f s; %d waited more than 1 s for a worker, %.1f s on average, %.1f s at most",
			l.Kind, time.Duration(l.CriticalPath).Seconds(), l.Reconciles, time.Duration(l.Work).Seconds(), l.Workers, time.Duration(l.ThroughputBound).Seconds(),
			l.Waited, time.Duration(l.MeanWait).Seconds(), time.Duration(l.MaxWait).Seconds())
		if l.Concurrent > 0 {
			fmt.Fprintf(b, "; --concurrent %d would save about %.1f s", l.Concurrent, time.Duration(l.Saving).Seconds())
		}
		b.WriteString(").\n")
	}
	s.writeDiagnoses(b)
	if len(last.BoundPath) > 0 {
		fmt.Fprintf(b, "Critical path of the last run: %s.\n", strings.Join(last.BoundPath, " → "))
	}
}

// rssGoal is the peak RSS goal and whether every run met it, or "".
func (s Scenario) rssGoal(u usageStats) string {
	if s.MaxRSSMiB <= 0 {
		return ""
	}
	return fmt.Sprintf(", goal < %g MiB: %s", s.MaxRSSMiB, yesNo(Summarize(u.rss).Max < s.MaxRSSMiB))
}

func geq(atLeast bool) string {
	if atLeast {
		return "≥ "
	}
	return ""
}

func yesNo(ok bool) string {
	if ok {
		return "yes"
	}
	return "**no**"
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// writeDiagnoses reports, for the runs where standup proved a deadlock,
// when it suspected and proved it and how many reconciles of the stuck
// Kustomization had failed by then.
func (s Scenario) writeDiagnoses(b *strings.Builder) {
	var suspected, proven, repaired, atSuspect, atProof []float64
	node := ""
	for _, r := range s.Runs {
		d := r.Standup.Diagnosis
		if d == nil {
			continue
		}
		node = d.Node
		suspected = append(suspected, d.Suspected.Seconds())
		proven = append(proven, d.Proven.Seconds())
		repaired = append(repaired, d.Repaired.Seconds())
		atSuspect = append(atSuspect, float64(d.FailedAtSuspect))
		atProof = append(atProof, float64(d.FailedAtProof))
	}
	if len(proven) == 0 {
		return
	}
	fmt.Fprintf(b, "Deadlock diagnosis (%d of %d runs), seconds from standup's first event: suspected %s, proven %s, first CRD pre-applied %s. "+
		"Failed reconciles of %s in the controller log: %s when suspected, %s when proven.\n",
		len(proven), len(s.Runs), Summarize(suspected).Format(1), Summarize(proven).Format(1), Summarize(repaired).Format(1),
		node, Summarize(atSuspect).Format(0), Summarize(atProof).Format(0))
}

// Missed lists the goals the scenario's medians do not meet: each
// ratio with a goal, standup's slowest run against StandupMax, at most 2
// patches to any Kustomization, no reads beyond a list and a watch per
// kind, and standup's peak RSS in every run below MaxRSSMiB. Empty when
// every goal is met.
func (s Scenario) Missed() []string {
	var out []string
	for _, r := range s.Ratios {
		if met, ok := s.Met(r); ok && !met {
			xs, _ := s.RatioValues(r)
			out = append(out, fmt.Sprintf("%s / %s = %.2f, want %s %g", r.Num, r.Den, Summarize(xs).Median, r.Op, r.Target))
		}
	}
	if s.StandupMax > 0 {
		if xs, atLeast := s.Times(Standup); len(xs) > 0 && (atLeast || Summarize(xs).Max > s.StandupMax.Seconds()) {
			out = append(out, fmt.Sprintf("standup's slowest run took %.1f s, want ≤ %s", Summarize(xs).Max, s.StandupMax))
		}
	}
	u := s.usage()
	if len(u.mostPatches) > 0 && Summarize(u.mostPatches).Max > 2 {
		out = append(out, fmt.Sprintf("%.0f patches to one Kustomization, want ≤ 2", Summarize(u.mostPatches).Max))
	}
	if len(u.extra) > 0 && Summarize(u.extra).Max > 0 {
		out = append(out, fmt.Sprintf("%.0f reads beyond one list and one watch per kind, want 0", Summarize(u.extra).Max))
	}
	if s.MaxRSSMiB > 0 && len(u.rss) > 0 && Summarize(u.rss).Max >= s.MaxRSSMiB {
		out = append(out, fmt.Sprintf("standup's peak RSS %.1f MiB, want < %g MiB", Summarize(u.rss).Max, s.MaxRSSMiB))
	}
	return out
}

package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kubestandup/standup/internal/benchgraph"
	"github.com/kubestandup/standup/pkg/render"
	"github.com/kubestandup/standup/pkg/wait"
)

// BenchmarkEventsAndRecordOverhead is issue 32's overhead check, side by
// side in one run: the same walk twice, once bare (--events=false, no
// record) and once as the runbook runs it (Events on, --record FILE), on
// two scenarios: the uniform lattice (a resume per Kustomization) and the
// seed's deadlock repaired (a proof and a CRD pre-apply). It prints one
// Markdown table per scenario from standup's own request counter (-v) and
// fails unless, between the two walks,
//   - the writes to the cluster's objects are the same;
//   - the Event requests telling of a mutation (kubeevents.OnMutation) are
//     at most one per mutation, and the walk's own notices at most one per
//     diagnosis the walk made (suspected, proven or assumed), one per
//     pre-apply (said on the stuck node) and one per node of the lowest
//     tier standup acted on (finished): none grows with the nodes walked;
//   - the reads are the same but the record header's one list of Flux's
//     Deployments (the controller image), and neither walk polls
//     (Requests.ExtraReadsWithin is 0).
func BenchmarkEventsAndRecordOverhead(b *testing.B) {
	env := newBenchEnv(b)
	ctx := context.Background()
	b.Run("uniform", func(b *testing.B) {
		w := graphWorld(b, env)
		defer w.Stop()
		turn := func(variant string, extra ...string) overheadRun {
			g := benchgraph.Uniform()
			g.Namespace = "overhead-" + variant
			if err := seedGraph(ctx, w, g, b.TempDir()); err != nil {
				b.Fatal(err)
			}
			out, err := standupResume(ctx, env, target{w: w, ns: g.Namespace, want: len(g.Nodes), cap: env.graphCap}, extra...)
			return overheadOf(b, variant, out, err)
		}
		checkOverhead(b, "uniform", turn("bare", "--events=false"), turn("recorded", "--record", filepath.Join(b.TempDir(), "uniform.ndjson")))
	})
	b.Run("deadlock", func(b *testing.B) {
		bundle, err := filepath.Abs(deadlockBundle)
		if err != nil {
			b.Fatal(err)
		}
		res, err := render.Load(ctx, render.Options{Path: deadlockPath})
		if err != nil {
			b.Fatal(err)
		}
		g, err := GraphOf(res.Objects)
		if err != nil {
			b.Fatal(err)
		}
		turn := func(variant string, extra ...string) overheadRun {
			w, _ := deadlockWorld(b, env)
			defer w.Stop()
			out, err := standupResume(ctx, env, target{w: w, want: len(g.Nodes), cap: env.deadlockCap}, append([]string{"--crds", bundle}, extra...)...)
			return overheadOf(b, variant, out, err)
		}
		checkOverhead(b, "deadlock", turn("bare", "--events=false"), turn("recorded", "--record", filepath.Join(b.TempDir(), "deadlock.ndjson")))
	})
}

// overheadRun is one walk's request counts.
type overheadRun struct {
	variant          string
	mutations        int
	writes, events   int
	reads, extra     int
	created, series  int
	deploymentsLists int
	// onMutations and walkNotices split the Event requests (-v);
	// noticeBound is what walkNotices may be at most, from the walk's own
	// events: 1 per diagnosis, 1 per pre-apply, 1 per node of the lowest
	// tier it acted on.
	onMutations, walkNotices, noticeBound int
}

var eventsLine = regexp.MustCompile(`(?m)^Events: (\d+) created, (\d+) series updates, (\d+) not posted \((\d+) on mutations, (\d+) walk notices\)$`)

func overheadOf(b *testing.B, variant string, out outcome, err error) overheadRun {
	b.Helper()
	if err != nil {
		b.Fatalf("%s walk: %v", variant, err)
	}
	if !out.Converged || out.usage == nil {
		b.Fatalf("%s walk did not converge (%d/%d Ready):\n%s", variant, out.Ready, out.Total, lastLines(out.stderr, 20))
	}
	r := out.usage.Requests
	by := r.ByVerb()
	run := overheadRun{variant: variant, mutations: out.usage.Mutations, writes: r.Writes(), events: r.EventWrites(),
		reads: by["get"] + by["list"] + by["watch"], extra: r.ExtraReadsWithin(out.Elapsed)}
	for req, n := range r {
		if req.Verb == "list" && req.Resource == "deployments.apps" {
			run.deploymentsLists += n
		}
	}
	if m := eventsLine.FindStringSubmatch(out.stderr); m != nil {
		run.created, _ = strconv.Atoi(m[1])
		run.series, _ = strconv.Atoi(m[2])
		if dropped, _ := strconv.Atoi(m[3]); dropped > 0 {
			b.Errorf("%s walk: %d Events not posted", variant, dropped)
		}
		run.onMutations, _ = strconv.Atoi(m[4])
		run.walkNotices, _ = strconv.Atoi(m[5])
	}
	events, err := ReadEvents(out.stdout)
	if err != nil {
		b.Fatal(err)
	}
	// An action event carries no tier: the node events do, as the
	// translator reads them.
	tierOf, acted := map[string]int{}, map[string]bool{}
	for _, e := range events {
		switch {
		case e.Type == wait.EventDiagnosis:
			run.noticeBound++ // suspected, proven or assumed
		case e.Type == wait.EventNode && e.Node != nil:
			tierOf[e.Node.String()] = e.Tier
		case e.Type == wait.EventAction && e.Node != nil:
			acted[e.Node.String()] = true
			if e.Action == string(wait.ActionPreApplyCRDs) {
				run.noticeBound++ // CRDsPreApplied on the stuck node
			}
		}
	}
	lowest := -1
	for id := range acted {
		if t := tierOf[id]; lowest < 0 || t < lowest {
			lowest = t
		}
	}
	for id := range acted {
		if tierOf[id] == lowest {
			run.noticeBound++
		}
	}
	return run
}

func checkOverhead(b *testing.B, scenario string, bare, recorded overheadRun) {
	b.Helper()
	var t strings.Builder
	fmt.Fprintf(&t, "\n%s: Events and --record, side by side in one run\n\n", scenario)
	fmt.Fprintln(&t, "| walk | mutations | writes | Event requests (created + series) | on mutations | walk notices (bound) | reads | extra reads | Deployments lists |")
	fmt.Fprintln(&t, "|---|---|---|---|---|---|---|---|---|")
	for _, r := range []overheadRun{bare, recorded} {
		fmt.Fprintf(&t, "| %s | %d | %d | %d (%d + %d) | %d | %d (%d) | %d | %d | %d |\n", r.variant, r.mutations, r.writes, r.events, r.created, r.series,
			r.onMutations, r.walkNotices, r.noticeBound, r.reads, r.extra, r.deploymentsLists)
	}
	fmt.Fprintf(&t, "\nEvent requests on mutations per mutation: %.2f (goal ≤ 1); walk notices %d (goal ≤ %d); reads added: %d (goal: the header's 1 list)\n",
		float64(recorded.onMutations)/float64(max(1, recorded.mutations)), recorded.walkNotices, recorded.noticeBound, recorded.reads-bare.reads)
	fmt.Print(t.String())
	if bare.events != 0 {
		b.Errorf("%s: --events=false still posted %d Event requests", scenario, bare.events)
	}
	if recorded.writes != bare.writes || recorded.mutations != bare.mutations {
		b.Errorf("%s: the recorded walk made %d writes (%d mutations), the bare one %d (%d): Events and the record must not change the walk", scenario, recorded.writes, recorded.mutations, bare.writes, bare.mutations)
	}
	if recorded.onMutations == 0 || recorded.onMutations > recorded.mutations {
		b.Errorf("%s: %d Event requests on %d mutations: want at least one, and at most one per mutation", scenario, recorded.onMutations, recorded.mutations)
	}
	if recorded.walkNotices > recorded.noticeBound {
		b.Errorf("%s: %d walk notices: want at most %d (1 per diagnosis and per pre-apply, 1 per lowest-tier node acted on)", scenario, recorded.walkNotices, recorded.noticeBound)
	}
	if recorded.created+recorded.series != recorded.events || recorded.onMutations+recorded.walkNotices != recorded.events {
		b.Errorf("%s: -v says %d created + %d series (%d on mutations, %d notices), the counter %d Event requests", scenario,
			recorded.created, recorded.series, recorded.onMutations, recorded.walkNotices, recorded.events)
	}
	if added := recorded.reads - bare.reads; added != recorded.deploymentsLists || recorded.deploymentsLists > 1 || bare.deploymentsLists != 0 {
		b.Errorf("%s: the recorded walk read %d more times (%d lists of Deployments): want the record header's one list and nothing else", scenario, added, recorded.deploymentsLists)
	}
	if bare.extra != 0 || recorded.extra != 0 {
		b.Errorf("%s: extra reads %d (bare) and %d (recorded): want none", scenario, bare.extra, recorded.extra)
	}
	b.ReportMetric(float64(recorded.events), "event-requests")
	b.ReportMetric(float64(recorded.mutations), "mutations")
}

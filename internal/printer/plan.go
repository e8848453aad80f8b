package printer

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/wait"
)

// Plan is what `resume --dry-run` prints: the cluster it read and what a
// walk would do there now, step by step.
type Plan struct {
	// Source names the cluster: "cluster https://10.0.0.1:6443 (context prod)".
	Source string
	Steps  []wait.PlanStep
}

// planPrinters are the formats of PrintPlan, as of the walk it stands for.
func planPrinters() []DocPrinter[Plan] {
	return []DocPrinter[Plan]{
		{FormatText, FromBuilder(writePlanText)},
		{FormatJSON, FromWriter(writePlanJSON)},
	}
}

// PrintPlan writes what `resume --dry-run` would do: for people, a header,
// each node by tier with what would be done and why, the deadlock a node
// is stuck in and the CRDs that would repair it, and a closing count
// (text); for programs, one JSON object per step (json).
func PrintPlan(w io.Writer, format string, p Plan) error {
	return Print(w, planPrinters(), format, p, RenderContext{}, "resume --dry-run")
}

// planMarks are the marks of the text plan's actions, as `terraform plan`
// marks its changes.
var planMarks = map[string]string{
	wait.PlanNone: "=", wait.PlanReconcile: "~", wait.PlanResume: "+", wait.PlanSkip: "-",
}

func writePlanText(b *strings.Builder, p Plan) {
	sum := wait.Summarize(p.Steps)
	b.WriteString(planHeader(p, sum) + "\n")
	if len(p.Steps) > 0 {
		b.WriteString("(= left alone, ~ reconcile, + resume and reconcile, - left suspended, · outside the selection)\n")
	}
	width := 0
	for _, s := range p.Steps {
		width = max(width, len(s.Node.String()))
	}
	tier := -1
	for _, s := range p.Steps {
		if s.Tier != tier {
			tier = s.Tier
			fmt.Fprintf(b, "\ntier %d\n", tier)
		}
		mark := planMarks[s.Action]
		if s.Passive {
			mark = "·"
		}
		fmt.Fprintf(b, "  %s %-*s  %s: %s\n", mark, width, s.Node, planVerb(s), s.Why)
		if s.Deadlock != nil {
			writePlanDeadlock(b, s.Deadlock)
		}
	}
	fmt.Fprintf(b, "\nPlan: %s, %s, %s to create.", Plural(sum.Reconciles, "reconcile"), Plural(sum.Resumes, "resume"), Plural(sum.CRDs, "CRD"))
	if sum.Unresolvable > 0 {
		fmt.Fprintf(b, " %s the bundle cannot repair: the walk would end with exit 3.", Plural(sum.Unresolvable, "deadlock"))
	}
	b.WriteString("\n")
}

// planHeader says where the plan was made, how many nodes it walks in how
// many tiers, and what would change.
func planHeader(p Plan, sum wait.PlanSummary) string {
	if len(p.Steps) == 0 {
		return fmt.Sprintf("Plan for %s: no node to walk; nothing would change.", p.Source)
	}
	tiersSeen := map[int]bool{}
	mixed, passive, alone := false, 0, 0
	for _, s := range p.Steps {
		tiersSeen[s.Tier] = true
		mixed = mixed || s.Node.Kind != flux.KindKustomization
		switch {
		case s.Passive:
			passive++
		case s.Action == wait.PlanNone:
			alone++
		}
	}
	nodes := Plural(len(p.Steps), "Kustomization")
	if mixed {
		nodes = fmt.Sprintf("%d Kustomizations and HelmReleases", len(p.Steps))
	}
	line := fmt.Sprintf("Plan for %s: %s in %s; %d to reconcile (%d of them to resume), %d already Ready",
		p.Source, nodes, Plural(len(tiersSeen), "tier"), sum.Reconciles, sum.Resumes, alone)
	if passive > 0 {
		line += fmt.Sprintf(", %d outside the selection", passive)
	}
	if sum.Deadlocks > 0 {
		line += fmt.Sprintf("; %s to repair", Plural(sum.Deadlocks, "cold-start deadlock"))
	}
	return line + ". Nothing is changed by a dry run."
}

// planVerb is a step's action in words.
func planVerb(s wait.PlanStep) string {
	switch {
	case s.Passive:
		return "wait, never touch"
	case s.Action == wait.PlanNone:
		return "nothing"
	case s.Action == wait.PlanResume:
		return "resume and reconcile"
	case s.Action == wait.PlanSkip:
		return "leave suspended"
	}
	return s.Action
}

// writePlanDeadlock says what the node is stuck on, what the walk would
// create for it and how it would prove the deadlock first.
// A spoke's deadlock names the spoke (its kubeConfig Secret) where the
// kinds are missing and on each CRD it would create, so the operator sees
// which cluster the dry run would write to.
func writePlanDeadlock(b *strings.Builder, d *wait.PlanDeadlock) {
	where, on := "the cluster", ""
	switch {
	case d.Spoke != "":
		on = planSpoke(d.Spoke)
		where = strings.TrimPrefix(on, " on ")
	case d.Unreached != "":
		where = "the hub"
	}
	fmt.Fprintf(b, "      ! cold-start deadlock: its server-side dry-run fails on %s, which %s does not serve\n", planKinds(d.Diagnosis.Missing), where)
	switch {
	case d.Unreached != "":
		fmt.Fprintf(b, "      it applies to the cluster of Secret %s, which standup did not read (see stderr): judged by the hub's view, the walk would report it and create nothing, on the hub or there: exit 3\n", d.Unreached)
	case !d.Remediate && d.Resolvable:
		b.WriteString("      the walk would prove it and report it, creating nothing (--no-remediate, or no CRD bundle): exit 3\n")
	case !d.Resolvable:
		var lacking []string
		for _, t := range d.Diagnosis.Unresolvable() {
			lacking = append(lacking, t.String())
		}
		fmt.Fprintf(b, "      the CRD bundle does not hold %s: the walk would prove it, create nothing and end with exit 3 (docs/runbook.md)\n", strings.Join(lacking, ", "))
	default:
		for _, c := range d.Create {
			fmt.Fprintf(b, "      + CustomResourceDefinition/%s from %s%s, once the deadlock is proven\n", c.Name, c.File, on)
		}
	}
	fmt.Fprintf(b, "      proof: %s: %s\n", d.Proof.Kind, d.Proof.Reason)
}

// planSpoke names the spoke of a kubeConfig Secret (namespace/name) as
// the walk's messages do: " on cluster NAME (Secret namespace/name)", NAME
// the Secret's name, as tiers shows the target.
func planSpoke(secret string) string {
	name := secret
	if _, n, ok := strings.Cut(secret, "/"); ok {
		name = n
	}
	return wait.OnCluster(name, secret)
}

// planKinds names missing kinds with their versions and the objects that
// use them.
func planKinds(ts []crds.MissingType) string {
	parts := make([]string, 0, len(ts))
	for _, t := range ts {
		s := t.String()
		var detail []string
		if len(t.Versions) > 0 {
			detail = append(detail, strings.Join(t.Versions, ", "))
		}
		if len(t.Objects) > 0 {
			objs := make([]string, 0, len(t.Objects))
			for _, o := range t.Objects {
				objs = append(objs, o.String())
			}
			detail = append(detail, "used by "+strings.Join(objs, ", "))
		}
		if len(detail) > 0 {
			s += " (" + strings.Join(detail, "; ") + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// planRecord is one NDJSON line of resume --dry-run -o json: the step,
// after the schema version that every line of resume -o json carries.
type planRecord struct {
	SchemaVersion int `json:"schemaVersion"`
	wait.PlanStep
}

// writePlanJSON writes one JSON object per step (NDJSON).
func writePlanJSON(w io.Writer, p Plan) error {
	enc := json.NewEncoder(w)
	for _, s := range p.Steps {
		if err := enc.Encode(planRecord{SchemaVersion: WalkSchemaVersion, PlanStep: s}); err != nil {
			return err
		}
	}
	return nil
}

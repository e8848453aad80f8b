package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubestandup/standup/internal/printer"
	"github.com/kubestandup/standup/pkg/check"
	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/fix"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/render"
	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

// exitCase is one way a command ends. Exactly one of its fields is set:
// run is a command line run in full, in process, one that needs no
// cluster; walk is a walk's summary and error (the real walker, simulated:
// walksim_test.go), which the command turns into its error with
// walkError after printing the summary in the row's format; err is the
// error the command returns.
type exitCase struct {
	name string
	run  []string
	walk func(t *testing.T) (wait.Summary, error)
	err  func(t *testing.T) error
}

// docTable is docs/exit-codes.md's "By command" table: each row's command
// cell, and its cell per exit code.
type docTable struct {
	codes []int
	rows  map[string]map[int]string
	order []string
}

func readExitCodeTable(t *testing.T) docTable {
	t.Helper()
	data, err := os.ReadFile("../../docs/exit-codes.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## By command\n")
	if !ok {
		t.Fatal(`docs/exit-codes.md has no "## By command" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	table := docTable{rows: map[string]map[int]string{}}
	sc := bufio.NewScanner(strings.NewReader(section))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "|") {
			if table.codes != nil && len(table.rows) > 0 {
				break // the table ended
			}
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		switch {
		case cells[0] == "command":
			for _, c := range cells[1:] {
				code, err := strconv.Atoi(c)
				if err != nil {
					t.Fatalf("the By command table's header has %q, not an exit code", c)
				}
				table.codes = append(table.codes, code)
			}
		case strings.HasPrefix(cells[0], "---"):
		default:
			if len(cells) != len(table.codes)+1 {
				t.Fatalf("row %s has %d cells, want %d", cells[0], len(cells), len(table.codes)+1)
			}
			row := map[int]string{}
			for i, code := range table.codes {
				row[code] = cells[i+1]
			}
			table.rows[cells[0]] = row
			table.order = append(table.order, cells[0])
		}
	}
	if len(table.rows) == 0 {
		t.Fatal("docs/exit-codes.md's By command table has no row")
	}
	return table
}

// TestExitCodesAsDocumented holds docs/exit-codes.md's "By command" table
// to the code: for every row (a command, or a command with the flags that
// change its codes) and every code the row lists, the ways the command
// ends with that code (exitCases) do; a code the row leaves empty has no
// way to happen; and every row of the table has its cases and every row of
// the cases its line in the table, so neither can drift. A walk's case is
// also printed in the row's format: the text summary is ✔ exactly when
// the code is 0, and -o json's last line is the summary whatever the code.
func TestExitCodesAsDocumented(t *testing.T) {
	table := readExitCodeTable(t)
	cases := exitCases(t)
	for _, row := range table.order {
		if _, ok := cases[row]; !ok {
			t.Errorf("docs/exit-codes.md has the row %s, which exitCases does not test", row)
		}
	}
	for row := range cases {
		if _, ok := table.rows[row]; !ok {
			t.Errorf("exitCases tests the row %s, which docs/exit-codes.md does not have", row)
		}
	}
	for _, row := range table.order {
		for _, code := range table.codes {
			doc, tested := table.rows[row][code], cases[row][code]
			switch {
			case doc != "" && len(tested) == 0:
				t.Errorf("%s, exit %d (%q): no case shows it", row, code, doc)
			case doc == "" && len(tested) > 0:
				t.Errorf("%s, exit %d: the doc leaves it empty, but %q returns it", row, code, tested[0].name)
			}
			for _, c := range tested {
				t.Run(fmt.Sprintf("%s/%d/%s", row, code, c.name), func(t *testing.T) {
					if got := exitCaseCode(t, row, c); got != code {
						t.Errorf("exit %d, want %d as docs/exit-codes.md says: %s", got, code, doc)
					}
				})
			}
		}
	}
}

// exitCaseCode returns the code c ends with.
func exitCaseCode(t *testing.T, row string, c exitCase) int {
	t.Helper()
	switch {
	case c.run != nil:
		out, errOut, code := runOffline(t, c.run...)
		if code == ExitUsage && out != "" {
			t.Errorf("%s: a usage error wrote to stdout: %q", strings.Join(c.run, " "), out)
		}
		if code != ExitOK && errOut == "" && out == "" {
			t.Errorf("%s: exit %d, and nothing said why", strings.Join(c.run, " "), code)
		}
		return code
	case c.walk != nil:
		s, err := c.walk(t)
		s = summaryStopped(s, err) // as walk and repairStuck print it
		code := ExitCode(walkError(s, err), io.Discard)
		printedSummaryAgrees(t, row, s, code)
		return code
	}
	return ExitCode(c.err(t), io.Discard)
}

// printedSummaryAgrees prints s as the row's command does and checks that
// what it shows agrees with the exit code.
func printedSummaryAgrees(t *testing.T, row string, s wait.Summary, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	format := printer.FormatText
	if strings.Contains(row, "-o json") {
		format = printer.FormatJSON
	}
	p := printer.NewWalkPrinter(&out, &errOut, printer.WalkOptions{Format: format})
	p.Close(s)
	if format == printer.FormatJSON {
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		var last wait.Event
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || last.Type != wait.EventSummary {
			t.Errorf("-o json's last line %q is not the summary (%v)", lines[len(lines)-1], err)
		}
		return
	}
	if ok := strings.HasPrefix(errOut.String(), "✔"); ok != (code == ExitOK) {
		t.Errorf("the summary reads %q, and the exit code is %d", strings.TrimSpace(errOut.String()), code)
	}
}

// byCode collects cases by the exit code they end with.
type byCode map[int][]exitCase

func (b byCode) add(code int, cs ...exitCase) byCode {
	b[code] = append(b[code], cs...)
	return b
}

func (b byCode) merge(o byCode) byCode {
	for code, cs := range o {
		b[code] = append(b[code], cs...)
	}
	return b
}

// walkCase is a simulated walk of nodes with opts, stopped after limit as
// --timeout would stop it (then with context.DeadlineExceeded).
func walkCase(name string, opts wait.Options, limit time.Duration, nodes ...simNode) exitCase {
	return exitCase{name: name, walk: func(t *testing.T) (wait.Summary, error) {
		s, done := simWalk(t, opts, limit, nodes...)
		if !done {
			return s, fmt.Errorf("walk: %w", context.DeadlineExceeded)
		}
		return s, nil
	}}
}

func errCase(name string, err error) exitCase {
	return exitCase{name: name, err: func(*testing.T) error { return err }}
}

func runCase(args ...string) exitCase {
	return exitCase{name: strings.Join(args, " "), run: args}
}

// generic are the codes every command that talks to a cluster shares: an
// API error, --timeout, Ctrl-C.
func generic(codes ...int) byCode {
	b := byCode{}
	for _, code := range codes {
		switch code {
		case ExitFailure:
			b.add(code, errCase("an API error", errors.New(`kustomizations.kustomize.toolkit.fluxcd.io is forbidden: User "ci" cannot list resource "kustomizations"`)))
		case ExitTimeout:
			b.add(code, errCase("--timeout", &timeoutError{after: time.Minute, err: fmt.Errorf("list: %w", context.DeadlineExceeded)}))
		case ExitInterrupted:
			b.add(code, errCase("Ctrl-C", fmt.Errorf("list: %w", context.Canceled)))
		}
	}
	return b
}

// walks are the ways a walk with opts ends, by code: resume's, and
// crds's repair walk's.
func walks(opts wait.Options) byCode {
	remediate := opts
	remediate.NoRemediate = true
	timed := opts
	timed.Timeout = time.Minute
	cut := exitCase{name: "--timeout during the walk", walk: func(t *testing.T) (wait.Summary, error) {
		s, _ := simWalk(t, opts, 5*time.Second, simNode{name: "a", outcome: simHangs})
		return s, fmt.Errorf("watch: %w", context.DeadlineExceeded)
	}}
	interrupted := exitCase{name: "Ctrl-C during the walk", walk: func(t *testing.T) (wait.Summary, error) {
		s, _ := simWalk(t, opts, 5*time.Second, simNode{name: "a", outcome: simHangs})
		s.Interrupted = true
		return s, context.Canceled
	}}
	return byCode{
		ExitOK: {
			walkCase("every node Ready after a reconcile", opts, time.Hour, simNode{name: "a"}, simNode{name: "b", deps: []string{"a"}}),
			walkCase("every node Ready already", opts, time.Hour, simNode{name: "a", ready: true}, simNode{name: "b", deps: []string{"a"}, ready: true}),
		},
		ExitFailure: {
			walkCase("a build failure, and what it blocks", opts, time.Hour, simNode{name: "a", outcome: simBuildFails}, simNode{name: "b", deps: []string{"a"}}),
			walkCase("a failure beside a node timeout", timed, time.Hour, simNode{name: "a", outcome: simBuildFails}, simNode{name: "b", outcome: simHangs}),
			{name: "an API error", walk: func(*testing.T) (wait.Summary, error) {
				return wait.Summary{}, errors.New("list kustomizations: connection refused")
			}},
		},
		ExitDeadlock: {
			walkCase("a proven deadlock, not remediated", remediate, time.Hour, simNode{name: "a", outcome: simDryRunMissing}, simNode{name: "b", deps: []string{"a"}}),
		},
		ExitInvalidGraph: {
			{name: "a cycle", walk: func(t *testing.T) (wait.Summary, error) { return wait.Summary{}, simCycle(t) }},
		},
		ExitTimeout: {
			cut,
			walkCase("only --node-timeout expiries", timed, time.Hour, simNode{name: "a", outcome: simHangs}, simNode{name: "b", deps: []string{"a"}}, simNode{name: "c"}),
		},
		ExitInterrupted: {interrupted},
	}
}

// exitCases are the ways each row of the table ends, by code.
func exitCases(t *testing.T) map[string]byCode {
	bundle, err := crds.LoadBundle("../../examples/homelab-deadlock/bootstrap/crds")
	if err != nil {
		t.Fatal(err)
	}
	noSuchName := func(sel tiers.Selection) error {
		objs := []flux.Object{simNode{name: "a"}.object(), simNode{name: "b", deps: []string{"a"}}.object()}
		return checkSelection(objs, sel, []string{flux.KindKustomization}, "standup")
	}
	resume := walks(wait.Options{}).add(ExitUsage,
		runCase("resume", "-o", "yaml"),
		runCase("resume", "--repo-root", "."),
		runCase("resume", "ks"),
		errCase("a name matching no node", noSuchName(tiers.Selection{Only: []string{"ghost"}})),
	)

	noUnsuspend := wait.Options{NoUnsuspend: true}
	timedNoUnsuspend := wait.Options{NoUnsuspend: true, Timeout: time.Minute}
	resumeNoUnsuspend := walks(noUnsuspend).add(ExitFailure,
		walkCase("a suspended node left suspended, and what it blocks", noUnsuspend, time.Hour,
			simNode{name: "a", ready: true}, simNode{name: "b", deps: []string{"a"}, suspended: true}, simNode{name: "c", deps: []string{"b"}}),
		walkCase("a node left suspended beside a node timeout", timedNoUnsuspend, time.Hour,
			simNode{name: "a", suspended: true}, simNode{name: "b", outcome: simHangs}),
	).add(ExitUsage, runCase("resume", "--no-unsuspend", "-o", "yaml"))

	stuck := simNode{name: "platform-config", outcome: simDryRunMissing}.object()
	stuck.ObservedGeneration = 1
	stuck.Ready = &flux.Condition{Status: "False", Reason: "ReconciliationFailed", Message: `StorageProfile/longhorn dry-run failed: no matches for kind "StorageProfile" in version "cdi.kubevirt.io/v1beta1"`}
	vms := simNode{name: "apps-vms", deps: []string{"platform-config"}, suspended: true}.object()
	plan := func(name string, opts wait.Options, objs ...flux.Object) exitCase {
		return exitCase{name: name, err: func(*testing.T) error {
			in := wait.PlanInput{Objects: objs, Sources: map[tiers.ID]string{simRepo: simRev}}
			return writePlan(io.Discard, printer.FormatText, "cluster https://127.0.0.1:6443", in, opts)
		}}
	}
	cycle := []flux.Object{simNode{name: "a", deps: []string{"b"}}.object(), simNode{name: "b", deps: []string{"a"}}.object()}
	dryRun := generic(ExitFailure, ExitTimeout, ExitInterrupted).add(ExitOK,
		plan("nodes to resume", wait.Options{}, simNode{name: "a", ready: true}.object(), simNode{name: "b", deps: []string{"a"}, suspended: true}.object()),
		plan("a deadlock to repair", wait.Options{Bundle: bundle}, stuck, vms),
		plan("a deadlock the bundle cannot repair", wait.Options{NoRemediate: true}, stuck, vms),
	).add(ExitUsage, runCase("resume", "--dry-run", "-o", "yaml")).add(ExitInvalidGraph, plan("a cycle", wait.Options{}, cycle...))

	resumeJSON := walks(wait.Options{}).add(ExitUsage, runCase("resume", "-o", "json", "--repo-root", "."))

	selections := byCode{}
	for _, sel := range []tiers.Selection{{Only: []string{"c"}}, {From: []string{"c"}}, {Exclude: []string{"a", "b"}}, {Namespace: "apps"}} {
		opts := wait.Options{Selection: sel}
		ns := ""
		if sel.Namespace != "" {
			ns = "apps"
		}
		what := fmt.Sprintf("%+v", sel)
		selections.add(ExitOK, walkCase(what+": the selected node Ready, its ancestors not counted", opts, time.Hour,
			simNode{name: "a", ready: true}, simNode{name: "b", deps: []string{"a"}, ready: true}, simNode{ns: ns, name: "c", deps: []string{"flux-system/b"}}))
		selections.add(ExitFailure, walkCase(what+": the selected node failed", opts, time.Hour,
			simNode{name: "a", ready: true}, simNode{name: "b", deps: []string{"a"}, ready: true}, simNode{ns: ns, name: "c", deps: []string{"flux-system/b"}, outcome: simBuildFails}))
		if len(sel.Only) == 0 { // --only walks the ancestors too
			selections.add(ExitTimeout, walkCase(what+": an ancestor outside the selection is not Ready", opts, time.Minute,
				simNode{name: "a", ready: true}, simNode{name: "b", deps: []string{"a"}}, simNode{ns: ns, name: "c", deps: []string{"flux-system/b"}}))
		}
		remediate := opts
		remediate.NoRemediate = true
		selections.add(ExitDeadlock, walkCase(what+": the selected node deadlocked", remediate, time.Hour,
			simNode{name: "a", ready: true}, simNode{name: "b", deps: []string{"a"}, ready: true}, simNode{ns: ns, name: "c", deps: []string{"flux-system/b"}, outcome: simDryRunMissing}))
	}
	for _, sel := range []tiers.Selection{{Only: []string{"ghost"}}, {From: []string{"ghost"}}, {Exclude: []string{"ghost"}}, {Namespace: "apps", Only: []string{"a"}}} {
		selections.add(ExitUsage, errCase(fmt.Sprintf("%+v matches no node", sel), noSuchName(sel)))
	}
	selections.add(ExitInvalidGraph, walks(wait.Options{Selection: tiers.Selection{Only: []string{"a"}}})[ExitInvalidGraph]...)
	selections.add(ExitInterrupted, walks(wait.Options{Selection: tiers.Selection{Only: []string{"a"}}})[ExitInterrupted]...)

	repair := wait.Options{NoUnsuspend: true, WithApplied: true, Bundle: bundle}
	timedRepair := repair
	timedRepair.Timeout = time.Minute
	unresolvable := func() error {
		d := crds.Diagnosis{Kustomization: simNode{name: "apps-vms"}.id(),
			Missing: []crds.MissingType{{Group: "cdi.kubevirt.io", Kind: "DataVolume", GroupKnown: true, Plural: "datavolumes"}}}
		_, err := crds.PlanRepairs([]crds.Diagnosis{d}, bundle)
		return err
	}
	resolvable := func() error {
		_, err := crds.PlanRepairs(crds.Stuck([]flux.Object{stuck}, nil, bundle), bundle)
		return err
	}
	crdsRepair := byCode{
		ExitOK: {
			errCase("nothing stuck", func() error { _, err := crds.PlanRepairs(nil, bundle); return err }()),
			walkCase("the stuck Kustomization repaired and Ready", repair, time.Hour, simNode{name: "a", ready: true}, simNode{name: "platform-config", deps: []string{"a"}, outcome: simDryRunMissing}),
		},
		ExitFailure: {
			walkCase("the stuck Kustomization left suspended", repair, time.Hour, simNode{name: "platform-config", suspended: true, outcome: simDryRunMissing}),
			walkCase("a repaired Kustomization failed", repair, time.Hour, simNode{name: "platform-config", outcome: simBuildFails}),
		},
		ExitDeadlock:     {errCase("the bundle lacks a kind", unresolvable())},
		ExitInvalidGraph: {{name: "a cycle", walk: func(t *testing.T) (wait.Summary, error) { return wait.Summary{}, simCycle(t) }}},
		ExitTimeout:      {walkCase("only --node-timeout expiries", timedRepair, time.Hour, simNode{name: "platform-config", outcome: simHangs})},
	}.merge(generic(ExitInterrupted)).add(ExitUsage, runCase("crds"), runCase("crds", "--crds", "../../examples/homelab-deadlock/bootstrap/crds", "-o", "yaml"))

	crdsDryRun := generic(ExitFailure, ExitTimeout, ExitInterrupted).add(ExitOK, errCase("the repairs printed", resolvable())).
		add(ExitDeadlock, errCase("the bundle lacks a kind", unresolvable()), errCase("without a bundle, a stuck Kustomization", func() error {
			_, err := crds.PlanRepairs(crds.Stuck([]flux.Object{stuck}, nil, nil), nil)
			return err
		}())).
		add(ExitUsage, runCase("crds", "--dry-run", "-o", "yaml"))

	cycleDir := writeCycle(t)
	homelab := "../../examples/homelab/clusters/prod"
	return map[string]byCode{
		"`tiers`": generic(ExitFailure, ExitTimeout, ExitInterrupted).
			add(ExitOK, runCase("tiers", "--path", homelab)).
			add(ExitFailure, runCase("tiers", "--path", filepath.Join(t.TempDir(), "absent")),
				errCase("a Kustomization not rendered", unrendered([]render.BuildFailure{{ID: simNode{name: "a"}.id(), Err: errors.New("big.yaml: over 16 MiB")}}))).
			add(ExitUsage, runCase("tiers", "--path", homelab, "-o", "sarif")).
			add(ExitInvalidGraph, runCase("tiers", "--path", cycleDir), errCase("a dangling dependsOn", &tiers.MissingError{})),
		"`resume`":                resume,
		"`resume --no-unsuspend`": resumeNoUnsuspend,
		"`resume --dry-run`":      dryRun,
		"`resume -o json`":        resumeJSON,
		"`resume NAME`, `--only`, `--from`, `--exclude`, `-n NS`": selections,
		"`crds`":           crdsRepair,
		"`crds --dry-run`": crdsDryRun,
		"`crds capture`": generic(ExitFailure, ExitTimeout, ExitInterrupted).
			add(ExitOK, errCase("the CRDs written", nil)).
			add(ExitUsage, runCase("crds", "capture")),
		"`audit`": generic(ExitInterrupted).
			add(ExitOK, runCase("audit", "--path", homelab)).
			add(ExitFailure, runCase("audit", "--path", "../../examples/homelab-deadlock/clusters/prod"), errCase("error hazards", &hazardsError{2})).
			add(ExitUsage, runCase("audit")),
		"`audit --fix`": generic(ExitInterrupted).
			add(ExitOK, exitCase{name: "the missing edge written", run: []string{"audit", "--fix", "--path", fixCopy(t, "missing-edge")}}).
			add(ExitFailure, exitCase{name: "a deadlock left to move", run: []string{"audit", "--fix", "--path", deadlockCopy(t)}},
				errCase("error hazards after the fix", &hazardsError{2}),
				errCase("a file that cannot be written", fix.Write(context.Background(), &fix.Plan{Files: []fix.File{{Name: "ks.yaml", Path: filepath.Join(t.TempDir(), "ks.yaml")}}}, nil))).
			add(ExitUsage, runCase("audit", "--fix", "--from-cluster", "--path", homelab), runCase("audit", "--fix", "-o", "sarif", "--path", homelab)),
		"`audit --fix --dry-run`": generic(ExitInterrupted).
			add(ExitOK, runCase("audit", "--fix", "--dry-run", "--path", "testdata/audit/missing-edge/clusters/prod")).
			add(ExitFailure, runCase("audit", "--fix", "--dry-run", "--path", "../../examples/homelab-deadlock/clusters/prod")).
			add(ExitUsage, runCase("audit", "--fix", "--dry-run"), runCase("audit", "--dry-run", "--path", homelab)),
		"`audit --from-cluster`": generic(ExitFailure, ExitTimeout, ExitInterrupted).
			add(ExitOK, errCase("the skeleton printed", nil)).
			add(ExitUsage, runCase("audit", "--from-cluster")),
		"`check`": generic(ExitTimeout, ExitInterrupted).
			add(ExitOK, errCase("every check passed", nil)).
			add(ExitFailure, errCase("a check failed", &check.FailedError{Checks: []string{"dry-run"}})).
			add(ExitUsage, runCase("check", "-o", "yaml")),
		"`version`": byCode{}.add(ExitOK, runCase("version")).add(ExitUsage, runCase("version", "extra")),
	}
}

// deadlockCopy copies examples/homelab-deadlock for --fix to write into,
// and returns its --path.
func deadlockCopy(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "homelab-deadlock")
	if err := os.CopyFS(dir, os.DirFS("../../examples/homelab-deadlock")); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "clusters", "prod")
}

// writeCycle writes a checkout whose two Kustomizations depend on each other.
func writeCycle(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	ks := func(name, dep string) string {
		return "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: " + name + "\n  namespace: flux-system\n" +
			"spec:\n  interval: 10m\n  path: ./empty\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n  dependsOn:\n    - name: " + dep + "\n"
	}
	files := map[string]string{"standup.yaml": "{}\n", "a.yaml": ks("a", "b"), "b.yaml": ks("b", "a"),
		"empty/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: default\n"}
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

package coldstart

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubestandup/standup/internal/sarifcheck"

	"github.com/kubestandup/standup/internal/printer"
	"github.com/kubestandup/standup/pkg/audit"
	"github.com/kubestandup/standup/pkg/tiers"
)

func auditReport() *audit.Report {
	ks := func(name string) tiers.ID {
		return tiers.ID{Kind: "Kustomization", Namespace: "flux-system", Name: name}
	}
	hazard := func(code audit.Code, sev audit.Severity, k, kind, name, file string) audit.Hazard {
		return audit.Hazard{Code: code, Severity: sev, Kustomization: ks(k),
			Object: audit.Object{APIVersion: "v1", Kind: kind, Name: name}, File: file,
			Message: string(code) + " message", Fix: string(code) + " fix"}
	}
	retry := hazard(audit.CodeMissingEdge, audit.SeverityWarning, "vms", "DataVolume", "e", "vms.yaml")
	retry.Retry, retry.Message, retry.Line = "5m", "other MISSING_EDGE message", 12
	r := &audit.Report{
		Path: "clusters/prod", Kustomizations: 3, Objects: 9,
		Hazards: []audit.Hazard{
			hazard(audit.CodeSecondOrderSamePass, audit.SeverityError, "config", "StorageProfile", "a", "profiles.yaml"),
			hazard(audit.CodeSecondOrderSamePass, audit.SeverityError, "config", "StorageProfile", "b", "profiles.yaml"),
			hazard(audit.CodeLiteralSubstitutionToken, audit.SeverityWarning, "config", "ConfigMap", "c", "cm.yaml"),
			hazard(audit.CodeMissingEdge, audit.SeverityWarning, "vms", "DataVolume", "d", ""),
			retry,
			hazard(audit.CodeUnknownKind, audit.SeverityNotice, "vms", "Widget", "w", "w.yaml"),
		},
		Bootstrap: []audit.BootstrapUse{{File: "bootstrap/helmfile.yaml", What: "helmfile release cert-manager/cert-manager", Catalog: "cert-manager",
			Groups: []string{"cert-manager.io", "acme.cert-manager.io"}}},
	}
	r.Findings = audit.GroupFindings(r.Hazards)
	return r
}

func TestAuditText(t *testing.T) {
	var b strings.Builder
	if err := PrintAudit(&b, printer.FormatText, auditReport(), AuditOptions{}); err != nil {
		t.Fatal(err)
	}
	want := `Errors (1)

  ✗ SECOND_ORDER_SAME_PASS  StorageProfile  (2 places)
      SECOND_ORDER_SAME_PASS message
      fix: SECOND_ORDER_SAME_PASS fix
      at Kustomization/flux-system/config  StorageProfile/a  profiles.yaml
      at Kustomization/flux-system/config  StorageProfile/b  profiles.yaml

Warnings (2)

  ! MISSING_EDGE  DataVolume  (2 places)
      DataVolume (2 objects in 1 Kustomization); the first: MISSING_EDGE message
      fix: MISSING_EDGE fix
      at Kustomization/flux-system/vms  DataVolume/d
      at Kustomization/flux-system/vms  DataVolume/e  vms.yaml:12  (retry after 5m)

  ! LITERAL_SUBSTITUTION_TOKEN  ConfigMap
      LITERAL_SUBSTITUTION_TOKEN message
      fix: LITERAL_SUBSTITUTION_TOKEN fix
      at Kustomization/flux-system/config  ConfigMap/c  cm.yaml

Notices (1)

  · UNKNOWN_KIND  Widget
      UNKNOWN_KIND message
      fix: UNKNOWN_KIND fix
      at Kustomization/flux-system/vms  Widget/w  w.yaml

Installed before Flux: 2 API groups (bootstrap/helmfile.yaml)

✗ 1 error, 2 warnings, 1 notice in 3 Kustomizations, 9 objects (clusters/prod)
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestAuditTextClean(t *testing.T) {
	for _, color := range []bool{false, true} {
		var b strings.Builder
		r := &audit.Report{Path: "clusters/dev", Kustomizations: 2, Objects: 1, Unrendered: 13}
		if err := PrintAudit(&b, printer.FormatText, r, AuditOptions{Options: printer.Options{Color: color}}); err != nil {
			t.Fatal(err)
		}
		if got := b.String(); strings.Contains(got, "\x1b[") != color || !strings.Contains(got, "0 errors, 0 warnings in 2 Kustomizations, 1 object (clusters/dev); 13 not audited: they build from another source") {
			t.Errorf("color %v: got %q", color, got)
		}
	}
}

// TestAuditSummaryCountsRenderWarnings: issue 35. The render's warnings
// are not findings: the summary counts them apart, as many as stderr's
// grouped lines add up to.
func TestAuditSummaryCountsRenderWarnings(t *testing.T) {
	var b strings.Builder
	r := &audit.Report{Path: "clusters/dev", Kustomizations: 2, Objects: 1, Notes: []string{"a: one", "b: two", "c: three"}}
	if err := PrintAudit(&b, printer.FormatText, r, AuditOptions{}); err != nil {
		t.Fatal(err)
	}
	if want := "✓ 0 errors, 0 warnings in 2 Kustomizations, 1 object (clusters/dev); 3 render warnings\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

func TestAuditJSONEmptyListsAndCounts(t *testing.T) {
	var b strings.Builder
	if err := PrintAudit(&b, printer.FormatJSON, &audit.Report{Path: "p"}, AuditOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`"schemaVersion": 2`, `"findings": []`, `"kinds": []`, `"bootstrap": []`, `"notes": []`, `"errors": 0`, `"notices": 0`} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("json lacks %s:\n%s", s, b.String())
		}
	}
	b.Reset()
	if err := PrintAudit(&b, printer.FormatJSON, auditReport(), AuditOptions{}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Summary  struct{ Errors, Warnings, Notices, Places int }
		Findings []audit.Finding
	}
	if err := json.Unmarshal([]byte(b.String()), &doc); err != nil || doc.Summary != (struct{ Errors, Warnings, Notices, Places int }{1, 2, 1, 6}) {
		t.Errorf("summary %+v, %v; want 1 error, 2 warnings, 1 notice, 6 places", doc.Summary, err)
	}
	// The JSON keeps every place of a grouped finding.
	if len(doc.Findings) != 4 || len(doc.Findings[1].Places) != 2 || doc.Findings[1].Places[1].Retry != "5m" {
		t.Errorf("findings %+v", doc.Findings)
	}
}

// TestAuditSARIF: the SARIF log is valid SARIF 2.1.0 (the OASIS schema,
// vendored) and fit for code scanning: one result per place, each at its
// object's line in a file named from the git root (the repository root may
// be a directory of it, and a file name may hold a space), with a
// fingerprint of its own that neither the file nor the line changes.
func TestAuditSARIF(t *testing.T) {
	gitRoot := t.TempDir()
	r := auditReport()
	r.GitRoot, r.RepoRoot = gitRoot, filepath.Join(gitRoot, "examples", "home lab")
	for i := range r.Hazards {
		h := &r.Hazards[i]
		if h.File == "" {
			h.File = "clusters/prod/vms.yaml" // audit names the Kustomization's file then
		}
		h.Line = i + 2
		file := filepath.Join(r.RepoRoot, filepath.FromSlash(h.File))
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(strings.Repeat("x: 1\n", 10)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r.Hazards[5].Line = 0 // unknown: the top of the file
	sarif := func(r *audit.Report) string {
		t.Helper()
		var b strings.Builder
		if err := PrintAudit(&b, FormatSARIF, r, AuditOptions{ToolVersion: "v9"}); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	out := sarif(r)
	if err := sarifcheck.Validate([]byte(out)); err != nil {
		t.Fatalf("not valid SARIF 2.1.0: %v\n%s", err, out)
	}
	n, err := sarifcheck.CodeScanning([]byte(out), gitRoot)
	if err != nil {
		t.Fatalf("not fit for code scanning: %v\n%s", err, out)
	}
	// SARIF keeps one result per place: code-scanning UIs annotate lines.
	if n != len(r.Hazards) {
		t.Fatalf("%d results, want one per place, %d", n, len(r.Hazards))
	}
	var log sarifLog
	if err := json.Unmarshal([]byte(out), &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	if log.Version != "2.1.0" || run.Tool.Driver.Version != "v9" || len(run.Tool.Driver.Rules) != len(audit.Rules()) {
		t.Fatalf("header: %+v", log)
	}
	for i, res := range run.Results {
		h := r.Hazards[i]
		if res.RuleID != string(h.Code) || run.Tool.Driver.Rules[res.RuleIndex].ID != res.RuleID || res.Level != sarifLevel(h.Severity) {
			t.Errorf("result %d: %+v", i, res)
		}
		p := res.Locations[0].PhysicalLocation
		if want := "examples/home%20lab/" + h.File; p.ArtifactLocation.URI != want || p.Region.StartLine != max(h.Line, 1) {
			t.Errorf("result %d at %s:%d, want %s:%d", i, p.ArtifactLocation.URI, p.Region.StartLine, want, max(h.Line, 1))
		}
	}
	if got := run.Results[5].Level; got != "note" {
		t.Errorf("a notice is level %q in SARIF, want note", got)
	}
	if !strings.HasSuffix(run.Tool.Driver.Rules[0].HelpURI, "docs/audit.md#second_order_same_pass") {
		t.Errorf("helpUri %s", run.Tool.Driver.Rules[0].HelpURI)
	}
	// Moving an object, in its file or to another, keeps its alert.
	moved := auditReport()
	moved.GitRoot, moved.RepoRoot = r.GitRoot, r.RepoRoot
	for i := range moved.Hazards {
		moved.Hazards[i].File, moved.Hazards[i].Line = "elsewhere.yaml", 40+i
	}
	var again sarifLog
	if err := json.Unmarshal([]byte(sarif(moved)), &again); err != nil {
		t.Fatal(err)
	}
	for i, res := range again.Runs[0].Results {
		if got, want := res.PartialFingerprints, run.Results[i].PartialFingerprints; got[SARIFFingerprint] != want[SARIFFingerprint] || got[SARIFFingerprint] == "" {
			t.Errorf("result %d: fingerprint %v once moved, was %v", i, got, want)
		}
	}
}

// TestAuditSARIFWithoutAFile: a place no file records has no physical
// location (audit names the Kustomization's file instead, so this is a
// report audit never makes), and the log is still valid SARIF.
func TestAuditSARIFWithoutAFile(t *testing.T) {
	var b strings.Builder
	if err := PrintAudit(&b, FormatSARIF, auditReport(), AuditOptions{ToolVersion: "v9"}); err != nil {
		t.Fatal(err)
	}
	if err := sarifcheck.Validate([]byte(b.String())); err != nil {
		t.Fatalf("not valid SARIF 2.1.0: %v", err)
	}
	var log sarifLog
	if err := json.Unmarshal([]byte(b.String()), &log); err != nil {
		t.Fatal(err)
	}
	if loc := log.Runs[0].Results[3].Locations[0]; loc.PhysicalLocation != nil || len(log.Runs[0].OriginalURIBaseIDs) != 0 {
		t.Errorf("a place without a file at %+v, base ids %v", loc.PhysicalLocation, log.Runs[0].OriginalURIBaseIDs)
	}
}

func TestPrintAuditUnknownFormat(t *testing.T) {
	var b strings.Builder
	err := PrintAudit(&b, "yaml", auditReport(), AuditOptions{})
	if err == nil || !strings.Contains(err.Error(), `unknown output format "yaml"`) || b.Len() != 0 {
		t.Errorf("got %v and %q, want an error and nothing written", err, b.String())
	}
}

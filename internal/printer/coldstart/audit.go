package coldstart

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/charmbracelet/lipgloss"

	"github.com/kubestandup/standup/internal/printer"
	"github.com/kubestandup/standup/pkg/audit"
)

// AuditOptions controls how PrintAudit renders.
type AuditOptions struct {
	printer.Options
	// ToolVersion is standup's version, written into SARIF's tool.driver.
	ToolVersion string
}

// auditPrinters are the formats of PrintAudit, default first: the human
// report (hazards grouped by Kustomization, errors first, and a summary
// line), json and SARIF, whose tool.driver names toolVersion.
func auditPrinters(toolVersion string) []printer.DocPrinter[*audit.Report] {
	return []printer.DocPrinter[*audit.Report]{
		{Format: printer.FormatText, Write: func(b *strings.Builder, r *audit.Report, rc printer.RenderContext) error {
			writeAuditText(b, r, rc.Styles())
			return nil
		}},
		{Format: printer.FormatJSON, Write: printer.FromWriter(writeAuditJSON)},
		{Format: FormatSARIF, Write: printer.FromWriter(func(w io.Writer, r *audit.Report) error {
			return writeAuditSARIF(w, r, toolVersion)
		})},
	}
}

// AuditFormats returns the formats PrintAudit accepts, default first.
func AuditFormats() []string { return printer.FormatNames(auditPrinters("")) }

// PrintAudit writes r to w in the given format, one of AuditFormats. The
// output is rendered completely before anything is written, so a failure
// leaves w untouched.
func PrintAudit(w io.Writer, format string, r *audit.Report, opts AuditOptions) error {
	return printer.Print(w, auditPrinters(opts.ToolVersion), format, r, printer.RenderContext{Color: opts.Color}, "audit")
}

// writeAuditText writes the human report: findings under Errors, Warnings
// and Notices, each with its code, kind, message, fix and every place it
// occurs, then what the repository installs before Flux, then the verdict.
// A place's own message and fix, which name its objects, are the json's.
func writeAuditText(b *strings.Builder, r *audit.Report, st printer.Styles) {
	var section audit.Severity
	for _, f := range r.Findings {
		if f.Severity != section {
			if section != "" {
				b.WriteString("\n")
			}
			section = f.Severity
			fmt.Fprintf(b, "%s (%d)\n", st.Header.Render(sectionTitle(section)), r.Count(section))
		}
		writeFinding(b, f, st)
	}
	if len(r.Findings) > 0 {
		b.WriteString("\n")
	}
	if line := bootstrapLine(r); line != "" {
		fmt.Fprintf(b, "%s\n\n", st.Dim.Render(line))
	}
	if line := unrecognisedLine(r); line != "" {
		fmt.Fprintf(b, "%s\n\n", st.Dim.Render(line))
	}
	b.WriteString(auditSummary(r, st))
}

func sectionTitle(s audit.Severity) string {
	switch s {
	case audit.SeverityError:
		return "Errors"
	case audit.SeverityWarning:
		return "Warnings"
	}
	return "Notices"
}

// severityMark is the mark and style of a severity.
func severityMark(s audit.Severity, st printer.Styles) (string, lipgloss.Style) {
	switch s {
	case audit.SeverityError:
		return "✗", st.Fail
	case audit.SeverityWarning:
		return "!", st.Warning
	}
	return "·", st.Dim
}

func writeFinding(b *strings.Builder, f audit.Finding, st printer.Styles) {
	mark, style := severityMark(f.Severity, st)
	count := ""
	if n := len(f.Places); n > 1 {
		count = "  " + st.Dim.Render(fmt.Sprintf("(%d places)", n))
	}
	fmt.Fprintf(b, "\n  %s %s  %s%s\n", style.Render(mark), style.Render(string(f.Code)), f.Kind, count)
	fmt.Fprintf(b, "      %s\n", f.Message)
	fmt.Fprintf(b, "      %s %s\n", st.Dim.Render("fix:"), f.Fix)
	for _, h := range f.Places {
		line := h.Kustomization.String() + "  " + h.Object.String()
		if h.Cluster != "" {
			line += "  in cluster " + h.Cluster
		}
		if h.File != "" {
			line += "  " + st.Dim.Render(fileLine(h))
		}
		if h.Retry != "" {
			line += "  " + st.Dim.Render("(retry after "+h.Retry+")")
		}
		if h.Severity != f.Severity {
			m, ms := severityMark(h.Severity, st)
			line = ms.Render(m) + " " + line
		}
		fmt.Fprintf(b, "      %s %s\n", st.Dim.Render("at"), line)
	}
}

// bootstrapLine says what the audit took as installed before Flux.
func bootstrapLine(r *audit.Report) string {
	groups := map[string]bool{}
	var files []string
	for _, u := range r.Bootstrap {
		if len(u.Groups)+len(u.Kinds) == 0 {
			continue
		}
		for _, g := range u.Groups {
			groups[g] = true
		}
		for _, k := range u.Kinds {
			groups[k.String()] = true
		}
		if !slices.Contains(files, u.File) {
			files = append(files, u.File)
		}
	}
	if len(files) == 0 {
		return ""
	}
	return fmt.Sprintf("Installed before Flux: %s (%s)", printer.Plural(len(groups), "API group"), strings.Join(files, ", "))
}

// unrecognisedLine names the manifest URLs bootstrap files apply that the
// audit could not tell the CRDs of, so that the owner sees them.
func unrecognisedLine(r *audit.Report) string {
	var urls []string
	for _, u := range r.Bootstrap {
		if u.Unrecognised {
			urls = append(urls, fmt.Sprintf("%s (%s)", strings.TrimPrefix(u.What, "manifest "), u.File))
		}
	}
	if len(urls) == 0 {
		return ""
	}
	return fmt.Sprintf("Not recognised before Flux: %s, CRDs unknown (declare them in standup.yaml bootstrapCRDs): %s",
		printer.Plural(len(urls), "manifest URL"), strings.Join(urls, ", "))
}

// auditSummary is the last line: the verdict and the counts.
func auditSummary(r *audit.Report, st printer.Styles) string {
	counts := printer.Plural(r.Warnings(), "warning")
	if n := r.Notices(); n > 0 {
		counts += ", " + printer.Plural(n, "notice")
	}
	scope := fmt.Sprintf("%s in %s, %s%s (%s)", counts,
		printer.Plural(r.Kustomizations, "Kustomization"), printer.Plural(r.Objects, "object"), clustersText(r), r.Path)
	if r.Unrendered > 0 {
		// A clean verdict must not read as covering what was not audited.
		scope += fmt.Sprintf("; %d not audited: they build from another source", r.Unrendered)
	}
	if r.Failed > 0 {
		scope += fmt.Sprintf("; %d not audited: their build failed (%s)", r.Failed, audit.CodeBuildFailed)
	}
	if n := len(r.Notes); n > 0 {
		// The render's warnings, not findings: stderr groups them by kind,
		// and its counts add up to this one.
		scope += "; " + printer.Plural(n, "render warning")
	}
	switch {
	case r.Errors() > 0:
		return fmt.Sprintf("%s %s, %s\n", st.Fail.Render("✗"), printer.Plural(r.Errors(), "error"), scope)
	default:
		return fmt.Sprintf("%s 0 errors, %s\n", st.OK.Render("✓"), scope)
	}
}

// clustersText names the clusters audited, ", 3 clusters: local,
// production/cluster-kubeconfig, staging/cluster-kubeconfig", when the
// objects land in more than the one Flux runs in (spec.kubeConfig); ""
// for one cluster, the common case, which needs no word.
func clustersText(r *audit.Report) string {
	if len(r.Clusters) == 0 || slices.Equal(r.Clusters, []string{audit.LocalCluster}) {
		return ""
	}
	return fmt.Sprintf(", %s: %s", printer.Plural(len(r.Clusters), "cluster"), strings.Join(r.Clusters, ", "))
}

// fileLine names a place's file as editors and terminals open it:
// file:line, or the file alone when the line is unknown.
func fileLine(h audit.Hazard) string {
	if h.Line > 0 {
		return fmt.Sprintf("%s:%d", h.File, h.Line)
	}
	return h.File
}

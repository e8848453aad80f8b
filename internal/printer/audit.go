package printer

import (
	"fmt"
	"io"
	"strings"

	"github.com/kubestandup/standup/pkg/audit"
)

// AuditOptions controls how PrintAudit renders.
type AuditOptions struct {
	Options
	// ToolVersion is standup's version, written into SARIF's tool.driver.
	ToolVersion string
}

// auditPrinters are the formats of PrintAudit, default first: the human
// report (hazards grouped by Kustomization, errors first, and a summary
// line), json and SARIF.
func auditPrinters() []docPrinter[*audit.Report] {
	return []docPrinter[*audit.Report]{
		{FormatText, func(b *strings.Builder, r *audit.Report, rc renderContext) error {
			writeAuditText(b, r, rc.styles())
			return nil
		}},
		{FormatJSON, writer(writeAuditJSON)},
		{FormatSARIF, func(b *strings.Builder, r *audit.Report, rc renderContext) error {
			return writeAuditSARIF(b, r, rc.toolVersion)
		}},
	}
}

// AuditFormats returns the formats PrintAudit accepts, default first.
func AuditFormats() []string { return formatNames(auditPrinters()) }

// PrintAudit writes r to w in the given format, one of AuditFormats. The
// output is rendered completely before anything is written, so a failure
// leaves w untouched.
func PrintAudit(w io.Writer, format string, r *audit.Report, opts AuditOptions) error {
	p, err := lookup(auditPrinters(), format)
	if err != nil {
		return err
	}
	var buf strings.Builder
	if err := p.write(&buf, r, renderContext{out: w, color: opts.Color, toolVersion: opts.ToolVersion}); err != nil {
		return fmt.Errorf("audit %s output: %w", format, err)
	}
	if _, err := io.WriteString(w, buf.String()); err != nil {
		return fmt.Errorf("writing audit %s output: %w", format, err)
	}
	return nil
}

// writeAuditText writes the human report. Hazards come sorted errors first,
// then by Kustomization; a Kustomization heads each run of its hazards.
func writeAuditText(b *strings.Builder, r *audit.Report, st Styles) {
	var section audit.Severity
	var group string
	for _, h := range r.Hazards {
		if h.Severity != section {
			if section != "" {
				b.WriteString("\n")
			}
			section, group = h.Severity, ""
			title := "Errors"
			if section == audit.SeverityWarning {
				title = "Warnings"
			}
			fmt.Fprintf(b, "%s (%d)\n", st.Header.Render(title), r.Count(section))
		}
		if ks := h.Kustomization.NamespacedName(); ks != group {
			group = ks
			fmt.Fprintf(b, "\n  %s %s\n", h.Kustomization.Kind, st.TierHeader.Render(ks))
		}
		writeHazard(b, h, st)
	}
	if len(r.Hazards) > 0 {
		b.WriteString("\n")
	}
	b.WriteString(auditSummary(r, st))
}

func writeHazard(b *strings.Builder, h audit.Hazard, st Styles) {
	mark, style := "✗", st.Fail
	if h.Severity == audit.SeverityWarning {
		mark, style = "!", st.Warning
	}
	where := ""
	if h.File != "" {
		where = "  " + st.Dim.Render(h.File)
	}
	fmt.Fprintf(b, "    %s %s  %s%s\n", style.Render(mark), style.Render(string(h.Code)), h.Object, where)
	fmt.Fprintf(b, "      %s\n", h.Message)
	fmt.Fprintf(b, "      %s %s\n", st.Dim.Render("fix:"), h.Fix)
}

// auditSummary is the last line: the verdict and the counts.
func auditSummary(r *audit.Report, st Styles) string {
	scope := fmt.Sprintf("%s in %s, %s (%s)", plural(r.Warnings(), "warning"),
		plural(r.Kustomizations, "Kustomization"), plural(r.Objects, "object"), r.Path)
	if r.Unrendered > 0 {
		// A clean verdict must not read as covering what was not audited.
		scope += fmt.Sprintf("; %d not audited: they build from another source", r.Unrendered)
	}
	if r.Failed > 0 {
		scope += fmt.Sprintf("; %d not audited: their build failed (see above)", r.Failed)
	}
	switch {
	case r.Errors() > 0:
		return fmt.Sprintf("%s %s, %s\n", st.Fail.Render("✗"), plural(r.Errors(), "error"), scope)
	default:
		return fmt.Sprintf("%s 0 errors, %s\n", st.OK.Render("✓"), scope)
	}
}

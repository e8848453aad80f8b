package coldstart

import (
	"fmt"
	"io"
	"strings"

	"github.com/kubestandup/standup/internal/printer"
	"github.com/kubestandup/standup/pkg/audit"
	"github.com/kubestandup/standup/pkg/fix"
)

// FormatDiff is a unified diff, as `git apply` reads it: audit --fix's
// format for programs.
const FormatDiff = "diff"

// FixDocument is what `audit --fix` prints: the plan, whether it was
// written, and the audit after it.
type FixDocument struct {
	Plan *fix.Plan
	// DryRun is set when nothing was written.
	DryRun bool
	// After is the audit of the checkout once the plan is written; nil with
	// DryRun.
	After *audit.Report
}

// fixPrinters are the formats of PrintFix, default first: for people, the
// files and their edits, what was not fixed and why, and the findings that
// need objects moved (with --dry-run, the diff first), then the audit after
// the fix; for programs, all of it as json, or the diff alone.
func fixPrinters() []printer.DocPrinter[FixDocument] {
	return []printer.DocPrinter[FixDocument]{
		{Format: printer.FormatText, Write: func(b *strings.Builder, d FixDocument, rc printer.RenderContext) error {
			st := rc.Styles()
			writeFixText(b, d, st)
			if d.After != nil {
				fmt.Fprintf(b, "\n%s\n\n", st.Header.Render("Audit after the fix"))
				writeAuditText(b, d.After, st)
			}
			return nil
		}},
		{Format: printer.FormatJSON, Write: printer.FromWriter(writeFixJSON)},
		{Format: FormatDiff, Write: printer.FromBuilder(func(b *strings.Builder, d FixDocument) { b.WriteString(d.Plan.Diff()) })},
	}
}

// FixFormats returns the formats PrintFix accepts, default first.
func FixFormats() []string { return printer.FormatNames(fixPrinters()) }

// PrintFix writes d to w in format, one of FixFormats, rendered whole
// before anything is written.
func PrintFix(w io.Writer, format string, d FixDocument, opts printer.Options) error {
	return printer.Print(w, fixPrinters(), format, d, printer.RenderContext{Color: opts.Color}, "audit --fix")
}

func writeFixText(b *strings.Builder, d FixDocument, st printer.Styles) {
	p := d.Plan
	if d.DryRun && len(p.Files) > 0 {
		writeDiff(b, p.Diff(), st)
		b.WriteString("\n")
	}
	verb := "Wrote"
	if d.DryRun {
		verb = "Would write"
	}
	if len(p.Files) == 0 {
		fmt.Fprintf(b, "%s\n", st.Header.Render("Nothing to write: no finding asks for an edit --fix can make"))
	} else {
		fmt.Fprintf(b, "%s (%s)\n", st.Header.Render(fmt.Sprintf("%s %s", verb, printer.Plural(len(p.Files), "file"))), printer.Plural(p.Edits(), "edit"))
		for _, f := range p.Files {
			fmt.Fprintf(b, "\n  %s %s\n", st.OK.Render("✓"), f.Name)
			for _, e := range f.Edits {
				fmt.Fprintf(b, "      %s  %s %s\n", e.Kustomization, st.Added.Render("+"), e.Change)
			}
		}
	}
	if len(p.NotFixed) > 0 {
		fmt.Fprintf(b, "\n%s\n", st.Header.Render(fmt.Sprintf("Not fixed (%d)", len(p.NotFixed))))
		for _, s := range p.NotFixed {
			what := s.Kustomization.String()
			if c := s.Change.String(); c != "" {
				what += "  " + c
			}
			fmt.Fprintf(b, "\n  %s %s\n      %s\n", st.Warning.Render("!"), what, s.Reason)
		}
	}
	if len(p.Moves) > 0 {
		fmt.Fprintf(b, "\n%s\n", st.Header.Render(fmt.Sprintf("Need objects moved (%d): --fix edits no objects; move them as each fix says", len(p.Moves))))
		for _, f := range p.Moves {
			mark, style := severityMark(f.Severity, st)
			fmt.Fprintf(b, "\n  %s %s  %s  %s\n", style.Render(mark), style.Render(string(f.Code)), f.Kind, st.Dim.Render("("+printer.Plural(f.Kustomizations(), "Kustomization")+")"))
			fmt.Fprintf(b, "      %s %s\n", st.Dim.Render("fix:"), f.Fix)
		}
	}
	if d.DryRun && len(p.Files) > 0 {
		fmt.Fprintf(b, "\n%s\n", st.Dim.Render("Nothing written (--dry-run). Run without --dry-run to write it, or pipe -o diff to git apply."))
	}
}

// writeDiff writes a unified diff, its added and removed lines coloured.
func writeDiff(b *strings.Builder, diff string, st printer.Styles) {
	for _, line := range strings.SplitAfter(diff, "\n") {
		text := strings.TrimSuffix(line, "\n")
		switch {
		case line == "":
			continue
		case strings.HasPrefix(text, "+++") || strings.HasPrefix(text, "---"):
			b.WriteString(st.Header.Render(text))
		case strings.HasPrefix(text, "@@"):
			b.WriteString(st.Dim.Render(text))
		case strings.HasPrefix(text, "+"):
			b.WriteString(st.Added.Render(text))
		case strings.HasPrefix(text, "-"):
			b.WriteString(st.Removed.Render(text))
		default:
			b.WriteString(text)
		}
		b.WriteString("\n")
	}
}

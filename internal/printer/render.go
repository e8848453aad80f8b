package printer

import (
	"fmt"
	"io"
	"strings"
)

// DocPrinter writes one whole document of type T in one format. A command's
// printers are a table of them, default first: FormatNames lists the
// table's formats for the registry, and Print writes a document through it.
type DocPrinter[T any] struct {
	Format string
	Write  func(b *strings.Builder, doc T, rc RenderContext) error
}

// RenderContext is what a format may need beyond the document.
type RenderContext struct {
	// Out is where the document goes, for its colour profile.
	Out   io.Writer
	Color bool
	// NoHeaders leaves out a table's header row.
	NoHeaders bool
}

// Styles returns the styles of the document, rendered for Out.
func (rc RenderContext) Styles() Styles { return NewStyles(rc.Out, rc.Color) }

// FormatNames returns the formats of printers, in order.
func FormatNames[T any](printers []DocPrinter[T]) []string {
	names := make([]string, len(printers))
	for i, p := range printers {
		names[i] = p.Format
	}
	return names
}

// Print writes doc to w in format, through the printer of printers for it
// (or for the format an alias of it stands for). The document is rendered
// completely before anything is written, so a failure leaves w untouched;
// errors name command ("tiers", "audit --fix") and the format.
func Print[T any](w io.Writer, printers []DocPrinter[T], format string, doc T, rc RenderContext, command string) error {
	p, err := lookup(printers, format)
	if err != nil {
		return err
	}
	rc.Out = w
	var buf strings.Builder
	if err := p.Write(&buf, doc, rc); err != nil {
		return fmt.Errorf("%s %s output: %w", command, format, err)
	}
	if _, err := io.WriteString(w, buf.String()); err != nil {
		return fmt.Errorf("writing %s %s output: %w", command, format, err)
	}
	return nil
}

// lookup returns the printer for format, or for the format an alias of it
// stands for.
func lookup[T any](printers []DocPrinter[T], format string) (DocPrinter[T], error) {
	format = canonicalFormat(format)
	for _, p := range printers {
		if p.Format == format {
			return p, nil
		}
	}
	return DocPrinter[T]{}, fmt.Errorf("unknown output format %q (want one of: %s)", format, strings.Join(FormatNames(printers), ", "))
}

// FromWriter adapts a printer that writes to an io.Writer.
func FromWriter[T any](write func(w io.Writer, doc T) error) func(*strings.Builder, T, RenderContext) error {
	return func(b *strings.Builder, doc T, _ RenderContext) error { return write(b, doc) }
}

// FromBuilder adapts a printer that cannot fail and needs no styles.
func FromBuilder[T any](write func(b *strings.Builder, doc T)) func(*strings.Builder, T, RenderContext) error {
	return func(b *strings.Builder, doc T, _ RenderContext) error { write(b, doc); return nil }
}

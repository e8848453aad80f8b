package printer

import (
	"fmt"
	"io"
	"strings"
)

// docPrinter writes one whole document of type T in one format.
type docPrinter[T any] struct {
	format string
	write  func(b *strings.Builder, doc T, rc renderContext) error
}

// renderContext is what a format may need beyond the document.
type renderContext struct {
	// out is where the document goes, for its colour profile.
	out   io.Writer
	color bool
	// toolVersion is standup's version, for SARIF's tool.driver.
	toolVersion string
	// noHeaders leaves out a table's header row.
	noHeaders bool
}

func (rc renderContext) styles() Styles { return NewStyles(rc.out, rc.color) }

// formatNames returns the formats of printers, in order.
func formatNames[T any](printers []docPrinter[T]) []string {
	names := make([]string, len(printers))
	for i, p := range printers {
		names[i] = p.format
	}
	return names
}

// lookup returns the printer for format, or for the format an alias of it
// stands for.
func lookup[T any](printers []docPrinter[T], format string) (docPrinter[T], error) {
	format = canonicalFormat(format)
	for _, p := range printers {
		if p.format == format {
			return p, nil
		}
	}
	return docPrinter[T]{}, fmt.Errorf("unknown output format %q (want one of: %s)", format, strings.Join(formatNames(printers), ", "))
}

// writer adapts a printer that writes to an io.Writer.
func writer[T any](write func(w io.Writer, doc T) error) func(*strings.Builder, T, renderContext) error {
	return func(b *strings.Builder, doc T, _ renderContext) error { return write(b, doc) }
}

// builder adapts a printer that cannot fail and needs no styles.
func builder[T any](write func(b *strings.Builder, doc T)) func(*strings.Builder, T, renderContext) error {
	return func(b *strings.Builder, doc T, _ renderContext) error { write(b, doc); return nil }
}

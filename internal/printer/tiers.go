package printer

import (
	"io"
	"strings"
)

// Options controls how printers render.
type Options struct {
	// Color enables ANSI colour in human formats. The caller decides it
	// (UseColor: NO_COLOR, --no-color, whether the output is a terminal).
	Color bool
	// NoHeaders leaves out a table's header row (--no-headers).
	NoHeaders bool
}

// tiersPrinters are the formats of PrintTiers, default first.
func tiersPrinters() []DocPrinter[TiersReport] {
	return []DocPrinter[TiersReport]{
		{FormatText, func(b *strings.Builder, r TiersReport, rc RenderContext) error {
			writeTiersTable(b, r, rc.Styles(), rc.NoHeaders)
			return nil
		}},
		{FormatJSON, FromWriter(writeTiersJSON)},
		{FormatYAML, FromWriter(writeTiersYAML)},
		{FormatDot, FromBuilder(writeTiersDot)},
		{FormatMermaid, FromBuilder(writeTiersMermaid)},
		{FormatShell, FromBuilder(writeTiersShell)},
	}
}

// TiersFormats returns the formats PrintTiers accepts, default first.
func TiersFormats() []string { return FormatNames(tiersPrinters()) }

// PrintTiers writes r to w in the given format, one of TiersFormats. The
// output is rendered completely before anything is written, so a failure
// leaves w untouched.
func PrintTiers(w io.Writer, format string, r TiersReport, opts Options) error {
	return Print(w, tiersPrinters(), format, r, RenderContext{Color: opts.Color, NoHeaders: opts.NoHeaders}, "tiers")
}

// PrintTiersFooter writes what follows the text table for people, the
// legend of its marks and a summary line ("8 nodes in 5 tiers from …"), to
// w: stderr, so that stdout holds the rows alone. The missing dependencies
// and warnings are the caller's to print, as for every format.
func PrintTiersFooter(w io.Writer, r TiersReport, opts Options) error {
	var b strings.Builder
	writeTiersFooter(&b, r, NewStyles(w, opts.Color))
	_, err := io.WriteString(w, b.String())
	return err
}

// nodeState is what the human and graph formats show of a node's status.
type nodeState int

const (
	stateOffline  nodeState = iota // no live status: read from files
	stateExternal                  // no object at all
	stateReady                     // Ready=True
	stateFailed                    // Ready=False
	statePending                   // Ready=Unknown or no Ready condition yet
)

func stateOf(r TiersReport, n TierNode) nodeState {
	switch {
	case n.External:
		return stateExternal
	case !r.Live:
		return stateOffline
	case n.Ready == nil:
		return statePending
	case n.Ready.Status == "True":
		return stateReady
	case n.Ready.Status == "False":
		return stateFailed
	default:
		return statePending
	}
}

// mark is the one-character sign of a state.
func (s nodeState) mark() string {
	switch s {
	case stateReady:
		return "✔"
	case stateFailed:
		return "✗"
	case statePending:
		return "…"
	case stateExternal:
		return "?"
	default:
		return ""
	}
}

const suspendedMark = "⏸"

// kindKustomization is the default kind of a node, left implicit in pictures.
const kindKustomization = "Kustomization"

// nodeCount returns the number of nodes in all tiers.
func (r TiersReport) nodeCount() int {
	n := 0
	for _, t := range r.Tiers {
		n += len(t.Nodes)
	}
	return n
}

// hasTargets reports whether any node applies to another cluster than the
// one it lives in (spec.kubeConfig): only then do the formats show where
// each node applies.
func (r TiersReport) hasTargets() bool {
	for _, t := range r.Tiers {
		for _, n := range t.Nodes {
			if n.Target != "" {
				return true
			}
		}
	}
	for _, o := range r.Outside {
		if o.Target != "" {
			return true
		}
	}
	return false
}

// localTarget is what the formats that show targets write for a node
// without one: it applies to the cluster it lives in, the one Flux runs in.
const localTarget = "<local>"

// mixedKinds reports whether the report's nodes and missing objects have
// more than one kind, in which case names must carry their kind.
func (r TiersReport) mixedKinds() bool {
	kind := ""
	seen := func(k string) bool {
		if kind == "" {
			kind = k
		}
		return k != kind
	}
	for _, t := range r.Tiers {
		for _, n := range t.Nodes {
			if seen(n.Kind) {
				return true
			}
		}
	}
	for _, m := range r.Missing {
		if seen(m.Missing.Kind) {
			return true
		}
	}
	return false
}

// label names a node namespace/name, prefixed with its kind when kinds mix.
func label(ref Ref, mixed bool) string {
	if mixed {
		return ref.Kind + "/" + ref.namespacedName()
	}
	return ref.namespacedName()
}

// oneLine makes s safe for a single-line comment or label.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

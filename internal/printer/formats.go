package printer

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Output formats, by the name -o takes. Every command speaks the same
// vocabulary: FormatText is the human form of each (a table for tiers, a
// checklist for check, progress lines for resume), FormatJSON its document
// for programs.
const (
	// FormatText is every command's human output, and the default of all
	// but audit --from-cluster.
	FormatText = "text"
	// FormatTable is another name of FormatText, accepted by every command:
	// the human form of tiers is a table, and kubectl's users reach for
	// -o table, so it means the same as -o text wherever they type it.
	FormatTable   = "table"
	FormatJSON    = "json"
	FormatYAML    = "yaml"
	FormatDot     = "dot"
	FormatMermaid = "mermaid"
	FormatShell   = "shell"
)

// canonicalFormat returns the format an -o name stands for: an alias gives
// its format, any other name itself. One table of aliases for every command
// keeps -o table meaning -o text everywhere.
func canonicalFormat(name string) string {
	if format, ok := FormatAliases()[name]; ok {
		return format
	}
	return name
}

// FormatAliases returns the other names -o accepts, each with the format it
// stands for, for help and completion.
func FormatAliases() map[string]string {
	return map[string]string{FormatTable: FormatText}
}

// Formats are the -o values one command accepts.
type Formats struct {
	// Names are the accepted formats, the default first, in the order a
	// refusal lists them. FormatAliases are accepted too, never listed.
	Names []string
}

// Registry holds commands' formats, keyed by the command's path ("crds
// capture"); audit --from-cluster and audit --fix print other documents
// than audit, so each has its own entry. Each list comes from the printers
// that write it.
type Registry map[string]Formats

// Commands returns the registry of the commands this package prints for:
// all but the cold-start model's (audit, audit --from-cluster, audit --fix,
// rehearse), whose printers are in the coldstart package, so that the live
// commands do not import the linter through their printers. cmd/standup
// joins the two (Registry.Join) into its one registry.
func Commands() Registry {
	return Registry{
		"version":      {Names: FormatNames(versionPrinters())},
		"tiers":        {Names: TiersFormats()},
		"resume":       {Names: WalkFormats()},
		"crds":         {Names: CRDsFormats()},
		"crds capture": {Names: CRDsFormats()},
		"check":        {Names: CheckFormats()},
		"report":       {Names: ReportFormats()},
		// completion writes a shell script, whatever -o says but json.
		"completion": {Names: []string{FormatText}},
	}
}

// Join returns a registry holding the commands of r and of others. A
// command is registered by one package alone; were it in two, the last
// would hold.
func (r Registry) Join(others ...Registry) Registry {
	out := maps.Clone(r)
	for _, o := range others {
		maps.Copy(out, o)
	}
	return out
}

// Of returns the formats registered for command, and whether any are.
func (r Registry) Of(command string) (Formats, bool) {
	f, ok := r[command]
	return f, ok
}

// Validate is the one check of -o: it returns the format command prints in
// (its default when format is empty, the format an alias stands for), or a
// *FormatError when command does not accept format.
func (r Registry) Validate(command, format string) (string, error) {
	f, ok := r.Of(command)
	switch {
	case !ok:
		return "", fmt.Errorf("no output formats registered for command %q", command)
	case format == "":
		return f.Names[0], nil
	case slices.Contains(f.Names, canonicalFormat(format)):
		return canonicalFormat(format), nil
	}
	return "", &FormatError{Command: command, Format: format, Want: f.Names}
}

// FormatError is an -o value the command does not accept.
type FormatError struct {
	Command string
	Format  string
	Want    []string
}

// Error names the command, the format and the accepted ones.
func (e *FormatError) Error() string {
	return fmt.Sprintf("%s: unknown output format %q (want %s)", e.Command, e.Format, wantList(e.Want))
}

// wantList words the accepted formats as a refusal reads them in a
// sentence: two as "a or b", more as "one of: a, b, c".
func wantList(names []string) string {
	switch len(names) {
	case 1:
		return names[0]
	case 2:
		return names[0] + " or " + names[1]
	}
	return "one of: " + strings.Join(names, ", ")
}

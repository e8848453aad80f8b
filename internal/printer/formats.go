package printer

import (
	"fmt"
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
	// FormatSARIF is SARIF 2.1.0, for code-scanning UIs.
	FormatSARIF = "sarif"
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

// registry holds every command's formats, keyed by the command's path
// ("crds capture"); audit --from-cluster and audit --fix print other
// documents than audit, so each has its own entry. Each list comes from the printers that
// write it.
func registry() map[string]Formats {
	return map[string]Formats{
		"version":              {Names: formatNames(versionPrinters())},
		"tiers":                {Names: TiersFormats()},
		"resume":               {Names: WalkFormats()},
		"crds":                 {Names: CRDsFormats()},
		"crds capture":         {Names: CRDsFormats()},
		"audit":                {Names: AuditFormats()},
		"audit --from-cluster": {Names: SkeletonFormats()},
		"audit --fix":          {Names: FixFormats()},
		"check":                {Names: CheckFormats()},
		"report":               {Names: ReportFormats()},
		"rehearse":             {Names: RehearseFormats()},
		// completion writes a shell script, whatever -o says but json.
		"completion": {Names: []string{FormatText}},
	}
}

// FormatsOf returns the formats registered for command, and whether any are.
func FormatsOf(command string) (Formats, bool) {
	f, ok := registry()[command]
	return f, ok
}

// ValidateFormat is the one check of -o: it returns the format command
// prints in (its default when format is empty, the format an alias stands
// for), or a *FormatError when command does not accept format.
func ValidateFormat(command, format string) (string, error) {
	f, ok := FormatsOf(command)
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

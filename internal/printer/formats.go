package printer

import (
	"fmt"
	"slices"
	"strings"
)

// Output formats, by the name -o takes.
const (
	// FormatText is the human report of audit, check, resume and version.
	FormatText = "text"
	// FormatTable is the human report of tiers (and version's other name for text).
	FormatTable   = "table"
	FormatJSON    = "json"
	FormatYAML    = "yaml"
	FormatDot     = "dot"
	FormatMermaid = "mermaid"
	FormatShell   = "shell"
	// FormatSARIF is SARIF 2.1.0, for code-scanning UIs.
	FormatSARIF = "sarif"
)

// Formats are the -o values one command accepts.
type Formats struct {
	// Names are the accepted formats, the default first, in the order a
	// refusal lists them.
	Names []string
	// Aliases are accepted too, never listed: version's "table".
	Aliases []string
	// Unread marks a command that does not read -o: any value is accepted
	// and ignored, as it always was for crds.
	Unread bool
}

// registry holds every command's formats, keyed by the command's path
// ("crds capture"); audit --from-cluster prints another document than
// audit, so it has its own entry. Each list comes from the printers that
// write it.
func registry() map[string]Formats {
	return map[string]Formats{
		"version":              {Names: formatNames(versionPrinters()), Aliases: []string{FormatTable}},
		"tiers":                {Names: TiersFormats()},
		"resume":               {Names: WalkFormats()},
		"crds":                 {Unread: true},
		"crds capture":         {Unread: true},
		"audit":                {Names: AuditFormats()},
		"audit --from-cluster": {Names: SkeletonFormats()},
		"check":                {Names: []string{FormatText, FormatJSON}},
	}
}

// FormatsOf returns the formats registered for command, and whether any are.
func FormatsOf(command string) (Formats, bool) {
	f, ok := registry()[command]
	return f, ok
}

// ValidateFormat is the one check of -o: it returns the format command
// prints in (its default when format is empty), or a *FormatError when
// command does not accept format.
func ValidateFormat(command, format string) (string, error) {
	f, ok := FormatsOf(command)
	switch {
	case !ok:
		return "", fmt.Errorf("no output formats registered for command %q", command)
	case f.Unread:
		return format, nil
	case format == "":
		return f.Names[0], nil
	case slices.Contains(f.Names, format), slices.Contains(f.Aliases, format):
		return format, nil
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

// wantList words the accepted formats. Two read "a or b"; more, "one of:
// a, b, c" (each command's wording before the registry existed).
func wantList(names []string) string {
	if len(names) == 2 {
		return names[0] + " or " + names[1]
	}
	return "one of: " + strings.Join(names, ", ")
}

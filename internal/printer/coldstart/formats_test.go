package coldstart

import (
	"slices"
	"strings"
	"testing"

	"github.com/kubestandup/standup/internal/printer"
)

// TestCommandsJoinThePrinterRegistry pins the cold-start commands' -o
// values and their refusals in the registry cmd/standup checks -o with,
// the one vocabulary (text for people, json for programs, table an alias
// of text), and that no command is registered by both packages.
func TestCommandsJoinThePrinterRegistry(t *testing.T) {
	registry := printer.Commands().Join(Commands())
	for command, want := range map[string]string{
		"audit":                "text, json, sarif",
		"audit --from-cluster": "yaml, text, json",
		"audit --fix":          "text, json, diff",
		"rehearse":             "text, json, mermaid",
	} {
		if _, ok := printer.Commands().Of(command); ok {
			t.Errorf("%s is registered by printer and by coldstart", command)
		}
		f, ok := registry.Of(command)
		if !ok || strings.Join(f.Names, ", ") != want {
			t.Errorf("%s: formats %v, want %s", command, f.Names, want)
			continue
		}
		if !slices.Contains(f.Names, printer.FormatJSON) || !slices.Contains(f.Names, printer.FormatText) {
			t.Errorf("%s: no text or no json format (has %v)", command, f.Names)
		}
		if got, err := registry.Validate(command, ""); got != f.Names[0] || err != nil {
			t.Errorf("%s -o '': %q, %v; want the default %s", command, got, err, f.Names[0])
		}
		if got, err := registry.Validate(command, printer.FormatTable); got != printer.FormatText || err != nil {
			t.Errorf("%s -o table: %q, %v; want text", command, got, err)
		}
		refusal := command + `: unknown output format "shell" (want one of: ` + want + ")"
		if _, err := registry.Validate(command, printer.FormatShell); err == nil || err.Error() != refusal {
			t.Errorf("%s -o shell: %v, want %s", command, err, refusal)
		}
	}
	if len(registry) != len(printer.Commands())+len(Commands()) {
		t.Errorf("the joined registry has %d commands, want %d", len(registry), len(printer.Commands())+len(Commands()))
	}
}

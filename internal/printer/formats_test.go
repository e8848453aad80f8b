package printer

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestValidateFormat pins the accepted -o values of every command printer
// registers and the exact refusal each prints (exit 2); coldstart pins the
// cold-start model's.
func TestValidateFormat(t *testing.T) {
	tests := []struct {
		command, format string
		want            string
		wantErr         string
	}{
		{command: "version", format: "", want: FormatText},
		{command: "version", format: "json", want: FormatJSON},
		{command: "version", format: "yaml", wantErr: `version: unknown output format "yaml" (want text or json)`},
		{command: "tiers", format: "", want: FormatText},
		{command: "tiers", format: "text", want: FormatText},
		{command: "tiers", format: "mermaid", want: FormatMermaid},
		{command: "tiers", format: "TEXT", wantErr: `tiers: unknown output format "TEXT" (want one of: text, json, yaml, dot, mermaid, shell)`},
		{command: "resume", format: "", want: FormatText},
		{command: "resume", format: "json", want: FormatJSON},
		{command: "resume", format: "yaml", wantErr: `resume: unknown output format "yaml" (want text or json)`},
		{command: "check", format: "", want: FormatText},
		{command: "check", format: "yaml", wantErr: `check: unknown output format "yaml" (want text or json)`},
		{command: "crds", format: "", want: FormatText},
		{command: "crds", format: "json", want: FormatJSON},
		{command: "crds", format: "yaml", wantErr: `crds: unknown output format "yaml" (want text or json)`},
		{command: "crds capture", format: "", want: FormatText},
		{command: "crds capture", format: "json", want: FormatJSON},
		{command: "completion", format: "", want: FormatText},
		{command: "completion", format: "json", wantErr: `completion: unknown output format "json" (want text)`},
		// table is text's other name, in every command that prints text.
		{command: "version", format: "table", want: FormatText},
		{command: "tiers", format: "table", want: FormatText},
		{command: "resume", format: "table", want: FormatText},
		{command: "check", format: "table", want: FormatText},
		{command: "crds", format: "table", want: FormatText},
		{command: "crds capture", format: "table", want: FormatText},
	}
	for _, tt := range tests {
		t.Run(tt.command+" -o "+tt.format, func(t *testing.T) {
			got, err := Commands().Validate(tt.command, tt.format)
			if tt.wantErr != "" {
				var fe *FormatError
				if !errors.As(err, &fe) || err.Error() != tt.wantErr {
					t.Fatalf("Validate() error = %v, want *FormatError %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("Validate() = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestValidateRefusesAnUnregisteredCommand(t *testing.T) {
	if _, err := Commands().Validate("nosuch", ""); err == nil {
		t.Error("Validate accepted a command with no registered formats")
	}
}

// TestEveryRegisteredFormatPrints: a format the registry accepts is one its
// printer writes, so that a check passed never meets an unknown format.
func TestEveryRegisteredFormatPrints(t *testing.T) {
	printers := map[string][]string{
		"tiers":        TiersFormats(),
		"resume":       FormatNames(planPrinters()),
		"version":      FormatNames(versionPrinters()),
		"crds":         CRDsFormats(),
		"crds capture": CRDsFormats(),
	}
	for command, printable := range printers {
		f, ok := Commands().Of(command)
		if !ok {
			t.Fatalf("%s: not registered", command)
		}
		for _, name := range f.Names {
			if !slices.Contains(printable, name) {
				t.Errorf("%s accepts -o %s, which no printer writes", command, name)
			}
		}
	}
}

// TestOneVocabulary: every command's human output is called text and its
// document for programs json, and every alias stands for a format in the
// vocabulary, so that -o means the same in every command.
func TestOneVocabulary(t *testing.T) {
	for command, f := range Commands() {
		if !slices.Contains(f.Names, FormatText) {
			t.Errorf("%s: no text format (has %v)", command, f.Names)
		}
		if command != "completion" && !slices.Contains(f.Names, FormatJSON) {
			t.Errorf("%s: no json format (has %v)", command, f.Names)
		}
		for alias := range FormatAliases() {
			if slices.Contains(f.Names, alias) {
				t.Errorf("%s lists %q, an alias, as a format of its own", command, alias)
			}
		}
	}
	for alias, format := range FormatAliases() {
		if canonicalFormat(alias) != format || canonicalFormat(format) != format {
			t.Errorf("alias %s: canonicalFormat gives %s, want %s", alias, canonicalFormat(alias), format)
		}
	}
}

// TestPrintersAcceptAliases: a printer called with an alias prints its
// format, whoever skipped the registry.
func TestPrintersAcceptAliases(t *testing.T) {
	v := Version{Version: "v1"}
	var text, table strings.Builder
	if err := PrintVersion(&text, FormatText, v); err != nil {
		t.Fatal(err)
	}
	if err := PrintVersion(&table, FormatTable, v); err != nil || table.String() != text.String() {
		t.Errorf("PrintVersion(table) = %q, %v; want the text %q", table.String(), err, text.String())
	}
}

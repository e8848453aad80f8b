package printer

import (
	"errors"
	"testing"
)

// TestValidateFormat pins every command's accepted -o values and the exact
// refusal each prints (exit 2).
func TestValidateFormat(t *testing.T) {
	tests := []struct {
		command, format string
		want            string
		wantErr         string
	}{
		{command: "version", format: "", want: FormatText},
		{command: "version", format: "table", want: FormatTable},
		{command: "version", format: "json", want: FormatJSON},
		{command: "version", format: "yaml", wantErr: `version: unknown output format "yaml" (want text or json)`},
		{command: "tiers", format: "", want: FormatTable},
		{command: "tiers", format: "mermaid", want: FormatMermaid},
		{command: "tiers", format: "text", wantErr: `tiers: unknown output format "text" (want one of: table, json, yaml, dot, mermaid, shell)`},
		{command: "resume", format: "", want: FormatText},
		{command: "resume", format: "json", want: FormatJSON},
		{command: "resume", format: "table", wantErr: `resume: unknown output format "table" (want text or json)`},
		{command: "audit", format: "", want: FormatText},
		{command: "audit", format: "sarif", want: FormatSARIF},
		{command: "audit", format: "yaml", wantErr: `audit: unknown output format "yaml" (want one of: text, json, sarif)`},
		{command: "audit --from-cluster", format: "", want: FormatYAML},
		{command: "audit --from-cluster", format: "text", want: FormatText},
		{command: "audit --from-cluster", format: "sarif", wantErr: `audit --from-cluster: unknown output format "sarif" (want one of: yaml, text, json)`},
		{command: "check", format: "", want: FormatText},
		{command: "check", format: "yaml", wantErr: `check: unknown output format "yaml" (want text or json)`},
		// crds does not read -o: whatever is given passes, unread.
		{command: "crds", format: "yaml", want: "yaml"},
		{command: "crds capture", format: "", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.command+" -o "+tt.format, func(t *testing.T) {
			got, err := ValidateFormat(tt.command, tt.format)
			if tt.wantErr != "" {
				var fe *FormatError
				if !errors.As(err, &fe) || err.Error() != tt.wantErr {
					t.Fatalf("ValidateFormat() error = %v, want *FormatError %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("ValidateFormat() = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestValidateFormatRefusesAnUnregisteredCommand(t *testing.T) {
	if _, err := ValidateFormat("nosuch", ""); err == nil {
		t.Error("ValidateFormat accepted a command with no registered formats")
	}
}

// TestEveryRegisteredFormatPrints: a format the registry accepts is one its
// printer writes, so that a check passed never meets an unknown format.
func TestEveryRegisteredFormatPrints(t *testing.T) {
	printers := map[string][]string{
		"tiers":                TiersFormats(),
		"audit":                AuditFormats(),
		"audit --from-cluster": SkeletonFormats(),
		"resume":               formatNames(planPrinters()),
		"version":              append(formatNames(versionPrinters()), FormatTable),
	}
	for command, printable := range printers {
		f, ok := FormatsOf(command)
		if !ok {
			t.Fatalf("%s: not registered", command)
		}
		for _, name := range append(f.Names, f.Aliases...) {
			found := false
			for _, p := range printable {
				found = found || p == name
			}
			if !found {
				t.Errorf("%s accepts -o %s, which no printer writes", command, name)
			}
		}
	}
}

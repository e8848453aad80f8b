package cliargs

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

func TestCheckArgs(t *testing.T) {
	cases := []struct {
		line    string
		wantErr string
	}{
		{line: "standup tiers --path X"},
		{line: "standup resume a b", wantErr: ""},
		{line: "standup tiers extra", wantErr: `tiers takes no arguments, got "extra" (did you mean --path extra?); see standup tiers --help`},
		{line: "standup crds capture --out d extra more", wantErr: `crds capture takes no arguments, got "extra more"; see standup crds capture --help`},
		{line: "standup crds captur", wantErr: `crds takes no arguments, got "captur" (did you mean "crds capture"?); see standup crds --help`},
		{line: "standup crds --dry-run capure", wantErr: `crds takes no arguments, got "capure" (did you mean "crds capture"?); see standup crds --help`},
		{line: "standup crds x", wantErr: `crds takes no arguments, got "x"; see standup crds --help`},
		{line: "standup resume -- a --dry-run", wantErr: `resume: "--dry-run" after "--" is not a flag there; write it before "--"`},
		{line: "standup crds capture -- --out", wantErr: `crds capture: "--out" after "--" is not a flag there; write it before "--"`},
		{line: "standup tiers -- -o", wantErr: `tiers: "-o" after "--" is not a flag there; write it before "--"`},
	}
	for _, tc := range cases {
		t.Run(tc.line, func(t *testing.T) {
			app := testApp()
			app.Writer, app.ErrWriter = io.Discard, io.Discard
			var checked error
			ran := false
			var guard func(cmds []*cli.Command)
			guard = func(cmds []*cli.Command) {
				for _, cmd := range cmds {
					cmd.Action = func(c *cli.Context) error { ran, checked = true, CheckArgs(c); return nil }
					guard(cmd.Subcommands)
				}
			}
			guard(app.Commands)
			if err := app.RunContext(context.Background(), Interspersed(app, strings.Fields(tc.line))); err != nil {
				t.Fatal(err)
			}
			if !ran {
				t.Fatal("the command did not run")
			}
			if tc.wantErr == "" && checked != nil || tc.wantErr != "" && (checked == nil || checked.Error() != tc.wantErr) {
				t.Errorf("CheckArgs() = %v, want %q", checked, tc.wantErr)
			}
		})
	}
}

package cliargs

import (
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// testApp has the shape of standup's: global flags that every command
// shares, resume taking names, tiers with --path, crds with a subcommand.
func testApp() *cli.App {
	global := func() []cli.Flag {
		return []cli.Flag{
			&cli.StringFlag{Name: "kubeconfig"},
			&cli.StringFlag{Name: "namespace", Aliases: []string{"n"}},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}},
			&cli.DurationFlag{Name: "timeout"},
		}
	}
	with := func(flags ...cli.Flag) []cli.Flag { return append(flags, global()...) }
	return &cli.App{
		Name:  "standup",
		Flags: global(),
		Commands: []*cli.Command{
			{Name: "resume", ArgsUsage: "[NAME]...", Flags: with(
				&cli.BoolFlag{Name: "dry-run"}, &cli.StringFlag{Name: "crds"}, &cli.IntFlag{Name: "max-inflight"}, &cli.StringSliceFlag{Name: "only"})},
			{Name: "tiers", Flags: with(&cli.StringFlag{Name: "path"}, &cli.StringSliceFlag{Name: "kinds"})},
			{Name: "crds", Flags: with(&cli.StringFlag{Name: "crds"}, &cli.BoolFlag{Name: "dry-run"}),
				Subcommands: []*cli.Command{{Name: "capture", Flags: with(&cli.StringFlag{Name: "out"})}}},
		},
	}
}

func TestInterspersedHoistsFlagsWrittenAfterNames(t *testing.T) {
	cases := []struct {
		in, want string
	}{
		{"standup resume platform-config --dry-run", "standup resume --dry-run -- platform-config"},
		{"standup resume ks apps -n flux-system --dry-run", "standup resume -n flux-system --dry-run -- ks apps"},
		{"standup resume --crds dir apps --max-inflight 2", "standup resume --crds dir --max-inflight 2 -- apps"},
		{"standup tiers extra --path X", "standup tiers --path X -- extra"},
		{"standup tiers --path X", "standup tiers --path X"},
		{"standup -o json tiers --path X", "standup -o json tiers --path X"},
		{"standup --kubeconfig k resume a --timeout=3s", "standup --kubeconfig k resume --timeout=3s -- a"},
		{"standup crds --dry-run capture --out d", "standup crds --dry-run capture --out d"},
		{"standup crds capture extra --out d", "standup crds capture --out d -- extra"},
		{"standup resume a -- --dry-run", "standup resume -- a -- --dry-run"},
		{"standup resume --dry-run=false a", "standup resume --dry-run=false -- a"},
		{"standup help resume", "standup help resume"},
		{"standup nosuch --dry-run", "standup nosuch --dry-run"},
		{"standup", "standup"},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			got := strings.Join(Interspersed(testApp(), strings.Fields(tc.in)), " ")
			if got != tc.want {
				t.Fatalf("Interspersed(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
		})
	}
}

package cliargs

import (
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"
)

// TestHelpLayout: sections in urfave/cli's order, the command's own flags
// first, then each category; placeholders from backquotes or the flag's
// type; defaults worth saying; descriptions in one hanging column, a term
// too long for it alone on its line.
func TestHelpLayout(t *testing.T) {
	page := HelpPage{
		Name:        "prog cmd",
		Usage:       "does one thing well",
		Synopsis:    "prog cmd [flags] NAME",
		Description: "First paragraph,\nreflowed.\n\nSecond.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "path", TakesFile: true, Usage: "the checkout's `DIR`"},
			&cli.DurationFlag{Name: "wait", Value: 2 * time.Second, Usage: "how long"},
			&cli.BoolFlag{Name: "a-flag-with-a-very-long-name-indeed", Usage: "long"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Category: "GLOBAL FLAGS", Usage: "output `FORMAT`"},
			&cli.StringSliceFlag{Name: "kinds", Value: cli.NewStringSlice("a", "b"), Usage: "kinds"},
			&cli.BoolFlag{Name: "hidden", Hidden: true},
		},
		Examples: []string{"# one", "prog cmd x", "# two", "prog cmd y"},
	}
	want := `NAME:
   prog cmd - does one thing well

USAGE:
   prog cmd [flags] NAME

DESCRIPTION:
   First paragraph, reflowed.

   Second.

FLAGS:
       --path DIR       the checkout's DIR
       --wait DURATION  how long (default: 2s)
       --a-flag-with-a-very-long-name-indeed
                        long
       --kinds KINDS    kinds (default: a,b)

GLOBAL FLAGS:
   -o, --output FORMAT  output FORMAT

EXAMPLES:
   # one
   prog cmd x

   # two
   prog cmd y
`
	if got := Help(page, 80); got != want {
		t.Errorf("Help:\n%s\nwant:\n%s", got, want)
	}
}

// TestHelpWraps: a description wraps under itself, never past the width;
// an example too long is broken outside its quotes, with " \".
func TestHelpWraps(t *testing.T) {
	page := HelpPage{
		Name:  "prog",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "quiet", Usage: strings.Repeat("word ", 12)}},
		Examples: []string{
			"prog x | jq -r '.checks[] | select(.status == \"fail\") | .name' | sort",
		},
	}
	got := Help(page, 40)
	want := `NAME:
   prog

FLAGS:
   --quiet  word word word word word
            word word word word word
            word word

EXAMPLES:
   prog x | jq -r \
       '.checks[] | select(.status == "fail") | .name' \
       | sort
`
	if got != want {
		t.Errorf("Help at 40:\n%s\nwant:\n%s", got, want)
	}
}

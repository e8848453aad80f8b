package cliargs

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// Interspersed moves every flag written after a positional word in front of
// it, so that `standup resume platform-config --dry-run` parses as kubectl
// and flux parse it. urfave/cli v2 stops parsing flags at the first
// positional word: left alone, --dry-run there would be dropped and the walk
// would run for real. Words after "--" stay positional. A flag the command
// does not define is left where it is, for the parser to refuse. args
// includes the program name, as os.Args does.
func Interspersed(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	out := []string{args[0]}
	flags, commands := app.Flags, app.Commands
	rest := args[1:]
	for depth := 0; ; depth++ {
		var lead, positional []string
		var next *cli.Command
		i := 0
		for ; i < len(rest); i++ {
			a := rest[i]
			if a == "--" {
				positional = append(positional, rest[i:]...)
				i = len(rest)
				break
			}
			if isFlagWord(a) {
				lead = append(lead, a)
				if takesValue(flags, a) && i+1 < len(rest) {
					i++
					lead = append(lead, rest[i])
				}
				continue
			}
			if len(positional) == 0 {
				if a == "help" || a == "h" {
					return args // urfave's own help command
				}
				if cmd := findCommand(commands, a); cmd != nil {
					next = cmd
					break
				}
			}
			positional = append(positional, a)
		}
		if next == nil && depth == 0 {
			return args // no command: the parser names the unknown word
		}
		out = append(out, lead...)
		if next == nil {
			if len(positional) > 0 && positional[0] != "--" {
				out = append(out, "--")
			}
			return append(out, positional...)
		}
		out = append(out, rest[i])
		flags, commands, rest = next.Flags, next.Subcommands, rest[i+1:]
	}
}

func isFlagWord(a string) bool { return len(a) > 1 && a[0] == '-' }

// takesValue reports whether the flag word a (without "=value") names a
// flag of flags that needs a value: every kind but a boolean one.
func takesValue(flags []cli.Flag, a string) bool {
	if strings.Contains(a, "=") {
		return false
	}
	name := strings.TrimLeft(a, "-")
	for _, f := range flags {
		for _, n := range f.Names() {
			if n != name {
				continue
			}
			_, isBool := f.(*cli.BoolFlag)
			return !isBool
		}
	}
	return false
}

func findCommand(commands []*cli.Command, name string) *cli.Command {
	for _, c := range commands {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

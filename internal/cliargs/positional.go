package cliargs

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// CheckArgs refuses positional words the running command does not take (it
// takes them when it declares ArgsUsage), and any flag written after "--"
// (it would be read as a name, not honoured). A refusal names the command
// as the user invoked it and suggests what the word may have meant: a
// subcommand it resembles, or --path when the command has one.
func CheckArgs(c *cli.Context) error {
	args := c.Args().Slice()
	if len(args) == 0 {
		return nil
	}
	name := CommandPath(c)
	for _, a := range args {
		if isFlagWord(a) {
			return fmt.Errorf("%s: %q after \"--\" is not a flag there; write it before \"--\"", name, a)
		}
	}
	if c.Command.ArgsUsage != "" {
		return nil
	}
	hint := ""
	if sub := Suggest(args[0], subcommandNames(c.Command)); sub != "" {
		hint = fmt.Sprintf(" (did you mean %q?)", name+" "+sub)
	} else if takesValue(c.Command.Flags, "--path") {
		hint = fmt.Sprintf(" (did you mean --path %s?)", args[0])
	}
	return fmt.Errorf("%s takes no arguments, got %q%s; see %s --help", name, strings.Join(args, " "), hint, c.Command.HelpName)
}

// CommandPath names the running command without the program: "crds
// capture", whatever name the program was invoked by.
func CommandPath(c *cli.Context) string {
	return strings.TrimPrefix(c.Command.HelpName, c.App.HelpName+" ")
}

// subcommandNames are the names a user may type after cmd, help aside.
func subcommandNames(cmd *cli.Command) []string {
	var names []string
	for _, sub := range cmd.Subcommands {
		if !sub.Hidden && sub.Name != "help" {
			names = append(names, sub.Names()...)
		}
	}
	return names
}

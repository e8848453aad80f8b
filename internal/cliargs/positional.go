package cliargs

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// CheckArgs refuses positional words the running command does not take (it
// takes them when it declares ArgsUsage), and any flag written after "--"
// (it would be read as a name, not honoured). A refusal names the command
// and, when the command has a --path flag, suggests it for the word.
func CheckArgs(c *cli.Context) error {
	args := c.Args().Slice()
	if len(args) == 0 {
		return nil
	}
	for _, a := range args {
		if isFlagWord(a) {
			return fmt.Errorf("%s: %q after \"--\" is not a flag there; write it before \"--\"", c.Command.FullName(), a)
		}
	}
	if c.Command.ArgsUsage != "" {
		return nil
	}
	hint := ""
	if takesValue(c.Command.Flags, "--path") {
		hint = fmt.Sprintf(" (did you mean --path %s?)", args[0])
	}
	return fmt.Errorf("%s takes no arguments, got %q%s; see standup %s --help", c.Command.FullName(), strings.Join(args, " "), hint, c.Command.FullName())
}

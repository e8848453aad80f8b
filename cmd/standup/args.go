package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// interspersed moves every flag written after a positional word in front of
// it, so that `standup resume platform-config --dry-run` parses as kubectl
// and flux parse it. urfave/cli v2 stops parsing flags at the first
// positional word: left alone, --dry-run there would be dropped and the walk
// would run for real. Words after "--" stay positional. A flag the command
// does not define is left where it is, for the parser to refuse.
func interspersed(app *cli.App, args []string) []string {
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

// guard wraps every command's action: positional words the command does not
// use are refused (exit 2, before any request is made), --timeout bounds
// the whole command, and an error caused by the deadline or by Ctrl-C gets
// its exit code whatever layer reported it.
func guard(cmd *cli.Command) {
	for _, sub := range cmd.Subcommands {
		guard(sub)
	}
	inner := cmd.Action
	if inner == nil {
		return
	}
	cmd.Action = func(c *cli.Context) error {
		if err := checkArgs(c); err != nil {
			return err
		}
		g := globals(c)
		if g.Timeout < 0 {
			return usageErrorf("--timeout %s: want a positive duration, or 0 for none", g.Timeout)
		}
		parent := c.Context
		if g.Timeout > 0 {
			var cancel context.CancelFunc
			c.Context, cancel = context.WithTimeout(parent, g.Timeout)
			defer cancel()
		}
		return stoppedBy(c.Context, parent, g, inner(c))
	}
}

// checkArgs refuses positional words the command does not take, and any
// flag written after "--" (it would be read as a name, not honoured).
func checkArgs(c *cli.Context) error {
	args := c.Args().Slice()
	if len(args) == 0 {
		return nil
	}
	for _, a := range args {
		if isFlagWord(a) {
			return usageErrorf("%s: %q after \"--\" is not a flag there; write it before \"--\"", c.Command.FullName(), a)
		}
	}
	if c.Command.ArgsUsage != "" {
		return nil
	}
	hint := ""
	if takesValue(c.Command.Flags, "--path") {
		hint = fmt.Sprintf(" (did you mean --path %s?)", args[0])
	}
	return usageErrorf("%s takes no arguments, got %q%s; see standup %s --help", c.Command.FullName(), strings.Join(args, " "), hint, c.Command.FullName())
}

// stoppedBy gives an error that the command's deadline or an interrupt
// caused the exit code it deserves. A walk prints its own summary and
// returns a silent error with the right code already; that is kept.
func stoppedBy(ctx, parent context.Context, g globalOptions, err error) error {
	if err == nil || ctx.Err() == nil || isOurs(err) {
		return err
	}
	if parent.Err() != nil {
		return &exitError{code: ExitInterrupted, err: fmt.Errorf("%w: %w", errInterrupted, err)}
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &exitError{code: ExitTimeout, err: fmt.Errorf("gave up after --timeout %s: %w", g.Timeout, err)}
	}
	return err
}

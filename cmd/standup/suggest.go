package main

import (
	"slices"
	"strings"

	"github.com/kubestandup/standup/internal/cliargs"
	"github.com/urfave/cli/v2"
)

// suggestFlag returns the long flag of the running command (the app's, at
// the root) that name most likely meant, or "".
func suggestFlag(c *cli.Context, name string) string {
	flags := c.App.VisibleFlags()
	if c.Command != nil && c.Command.HelpName != c.App.HelpName {
		flags = c.Command.VisibleFlags()
	}
	var names []string
	for _, f := range flags {
		for _, n := range f.Names() {
			if len(n) > 1 {
				names = append(names, n)
			}
		}
	}
	return cliargs.Suggest(name, names)
}

// subcommandWithFlag returns the path of the running command's subcommand
// that has the flag name, or "".
func subcommandWithFlag(c *cli.Context, name string) string {
	if c.Command == nil || c.Command.HelpName == c.App.HelpName {
		return ""
	}
	for _, sub := range c.Command.Subcommands {
		for _, f := range sub.Flags {
			if sub.Name != "help" && slices.Contains(f.Names(), name) {
				return cliargs.CommandPath(c) + " " + sub.Name
			}
		}
	}
	return ""
}

// unknownCommand refuses a word that names no command of c's, with the
// command it most likely meant.
func unknownCommand(c *cli.Context, name string) error {
	var names []string
	for _, cmd := range c.App.VisibleCommands() {
		if cmd.Name != "help" {
			names = append(names, cmd.Names()...)
		}
	}
	if s := cliargs.Suggest(name, names); s != "" {
		return usageErrorf("unknown command %q; did you mean %q? (see %s --help)", name, s, c.App.HelpName)
	}
	return usageErrorf("unknown command %q (see %s --help)", name, c.App.HelpName)
}

// unusedGlobal says why the running command takes no global flag name
// after its name (one of standup's own, before it), or "" when name is
// no global flag.
func unusedGlobal(c *cli.Context, name string) string {
	if c.Command == nil || c.Command.HelpName == c.App.HelpName {
		return ""
	}
	var global cli.Flag
	for _, f := range c.App.Flags {
		if slices.Contains(f.Names(), name) {
			global = f
		}
	}
	if global == nil || category(global) == "" {
		return ""
	}
	path := cliargs.CommandPath(c)
	use, _ := globalUseOf(path)
	switch {
	case !use.Cluster && strings.HasPrefix(category(global), clusterHeading):
		return path + " reaches no cluster"
	case use.Namespace == "" && (name == "namespace" || name == "n" || name == "all-namespaces" || name == "A"):
		return path + " reads every namespace"
	}
	return path + " has no use for it"
}

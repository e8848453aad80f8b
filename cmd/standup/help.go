package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/kubestandup/standup/internal/cliargs"
)

// invocation returns how the user invoked standup, from the program path
// (os.Args[0]): kubectl runs a krew plugin as kubectl-NAME and the Flux CLI
// runs its plugins as flux-NAME, so that help and errors say "kubectl
// standup" and "flux standup", the words the user typed. Any other name is
// the program's own. bin is the file name, what a shell completes.
func invocation(arg0 string) (prog, bin string) {
	bin = strings.TrimSuffix(filepath.Base(arg0), ".exe")
	switch {
	case arg0 == "" || bin == "." || bin == string(filepath.Separator):
		bin = "standup"
	case strings.HasPrefix(bin, "kubectl-") && len(bin) > len("kubectl-"):
		// krew: kubectl-foo-bar is `kubectl foo bar`, kubectl-foo_bar `kubectl foo-bar`.
		return "kubectl " + strings.ReplaceAll(strings.ReplaceAll(strings.TrimPrefix(bin, "kubectl-"), "-", " "), "_", "-"), bin
	case strings.HasPrefix(bin, "flux-") && len(bin) > len("flux-"):
		return "flux " + strings.TrimPrefix(bin, "flux-"), bin
	}
	return bin, bin
}

// withExamples gives cmd an EXAMPLES section, after the rest of its help
// (and so at the end of its man page). lines are comments, "# ...", each
// starting an example, and command lines written "standup ...", shown with
// the name the user invoked standup by (prog).
func withExamples(cmd *cli.Command, prog string, lines ...string) *cli.Command {
	tmpl := cli.CommandHelpTemplate
	if len(cmd.Subcommands) > 0 {
		tmpl = cli.SubcommandHelpTemplate
	}
	cmd.CustomHelpTemplate = tmpl + examplesSection(prog, lines)
	return cmd
}

// examplesSection renders EXAMPLES as urfave/cli renders its sections,
// escaped for the help template.
func examplesSection(prog string, lines []string) string {
	var b strings.Builder
	b.WriteString("\nEXAMPLES:\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "#") && i > 0 {
			b.WriteString("\n")
		}
		if rest, ok := strings.CutPrefix(l, "standup "); ok {
			l = prog + " " + rest
		}
		b.WriteString("   " + strings.ReplaceAll(l, "{{", `{{"{{"}}`) + "\n")
	}
	return b.String()
}

// usageErrorOf words a command line urfave/cli could not parse as one line
// that points at the command's help, with a "did you mean" for a flag the
// command does not have.
func usageErrorOf(c *cli.Context, err error) error {
	help := c.App.HelpName
	where := ""
	if c.Command != nil && c.Command.HelpName != "" && c.Command.HelpName != c.App.HelpName {
		help = c.Command.HelpName
		where = cliargs.CommandPath(c) + ": "
	}
	name, unknown := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !unknown {
		return usageErrorf("%s%v (see %s --help)", where, err, help)
	}
	flag := "--" + name
	if len(name) == 1 {
		flag = "-" + name
	}
	if sub := subcommandWithFlag(c, name); sub != "" { // crds captur --out: the subcommand was mistyped
		return usageErrorf("%sunknown flag %s; it is a flag of %q (see %s --help)", where, flag, sub, help)
	}
	if s := suggestFlag(c, name); s != "" {
		return usageErrorf("%sunknown flag %s; did you mean --%s? (see %s --help)", where, flag, s, help)
	}
	return usageErrorf("%sunknown flag %s (see %s --help)", where, flag, help)
}

// rootAction runs when no command is named: --version prints the
// version, a word that names no command is refused with a suggestion, and
// nothing at all prints the help.
func rootAction(c *cli.Context, version func() error) error {
	switch {
	case c.Bool("version"):
		return version()
	case c.Args().Present():
		return unknownCommand(c, c.Args().First())
	}
	if err := cli.ShowAppHelp(c); err != nil {
		return fmt.Errorf("help: %w", err)
	}
	return nil
}

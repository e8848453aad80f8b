package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/kubestandup/standup/internal/cliargs"
	"github.com/kubestandup/standup/internal/printer"
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

// examplesMark starts the CustomHelpTemplate of a command whose help is
// not written yet: withExamples keeps the examples there until newApp,
// which knows the width to wrap to, writes the whole help in their place
// (writeHelp).
const examplesMark = "\x00examples\n"

// withExamples gives cmd an EXAMPLES section, after the rest of its help
// (and so at the end of its man page). lines are comments, "# ...", each
// starting an example, and command lines written "standup ...", shown with
// the name the user invoked standup by (prog).
func withExamples(cmd *cli.Command, prog string, lines ...string) *cli.Command {
	cmd.CustomHelpTemplate = examplesMark + strings.Join(invokedExamples(prog, lines), "\n")
	return cmd
}

// invokedExamples writes the command lines of examples as prog.
func invokedExamples(prog string, lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		if rest, ok := strings.CutPrefix(l, "standup "); ok {
			l = prog + " " + rest
		}
		out[i] = l
	}
	return out
}

// helpWidth is the width help is wrapped to on w: the width w states (a
// man page's source), else the terminal's, else cliargs.DefaultWidth.
func helpWidth(w io.Writer) int {
	if c, ok := w.(interface{ Columns() int }); ok {
		return c.Columns()
	}
	if width, ok := printer.TerminalWidth(w); ok {
		return width
	}
	return cliargs.DefaultWidth
}

// writeHelp writes the help of cmd (at prefix, its parent's path) and of
// its subcommands into their CustomHelpTemplate, wrapped to width: its
// own flags first, then the global ones it takes (globalUseOf).
func writeHelp(cmd *cli.Command, prefix, prog string, width int) {
	path := strings.TrimSpace(prefix + " " + cmd.Name)
	examples, _ := strings.CutPrefix(cmd.CustomHelpTemplate, examplesMark)
	synopsis := prog + " " + path
	if len(cmd.Subcommands) > 0 {
		synopsis += " [command]"
	}
	synopsis += " [flags]"
	if cmd.ArgsUsage != "" {
		synopsis += " " + cmd.ArgsUsage
	}
	page := cliargs.HelpPage{
		Name:        prog + " " + path,
		Usage:       cmd.Usage,
		Synopsis:    synopsis,
		Description: cmd.Description,
		Commands:    cmd.Subcommands,
		Flags:       withHelpFlag(cmd.Flags),
		Examples:    strings.Split(examples, "\n"),
	}
	if examples == "" {
		page.Examples = nil
	}
	cmd.CustomHelpTemplate = asTemplate(cliargs.Help(page, width))
	for _, sub := range cmd.Subcommands {
		writeHelp(sub, path, prog, width)
	}
}

// rootHelp is standup's own help: its commands, its flags and the global
// ones, and examples, wrapped to width, as a help template.
func rootHelp(app *cli.App, prog string, width int, examples ...string) string {
	return asTemplate(cliargs.Help(cliargs.HelpPage{
		Name:     prog,
		Usage:    app.Usage,
		Synopsis: prog + " [global flags] command [flags]",
		Commands: app.Commands,
		Flags:    withHelpFlag(app.Flags),
		Examples: invokedExamples(prog, examples),
	}, width))
}

// withHelpFlag lists flags with -h/--help last among the command's own,
// as urfave/cli adds it.
func withHelpFlag(flags []cli.Flag) []cli.Flag {
	var own, global []cli.Flag
	for _, f := range flags {
		switch {
		case f.Names()[0] == "help":
		case category(f) == "":
			own = append(own, f)
		default:
			global = append(global, f)
		}
	}
	own = append(own, &cli.BoolFlag{Name: "help", Aliases: []string{"h"}, Usage: "show this help"})
	return append(own, global...)
}

// category is a flag's help section: "" for the command's own.
func category(f cli.Flag) string {
	if c, ok := f.(cli.CategorizableFlag); ok {
		return c.GetCategory()
	}
	return ""
}

// asTemplate escapes text for urfave/cli's help template, which it is
// printed through.
func asTemplate(text string) string {
	return strings.ReplaceAll(text, "{{", `{{"{{"}}`)
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
	if why := unusedGlobal(c, name); why != "" { // version --kubeconfig
		return usageErrorf("%s%s is not used here: %s (see %s --help)", where, flag, why, help)
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

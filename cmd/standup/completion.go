package main

import (
	"io"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/kubestandup/standup/internal/cliargs"
	"github.com/kubestandup/standup/pkg/flux"
)

// completionCommand is `standup completion SHELL`: the script that makes
// SHELL complete bin's commands, flags and -o formats.
func completionCommand(streams Streams, prog, bin string) *cli.Command {
	return withExamples(&cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script: " + strings.Join(cliargs.Shells(), ", "),
		ArgsUsage: strings.Join(cliargs.Shells(), "|"),
		Description: "The script knows every command, its flags and the values -o and --kinds take; completing\n" +
			"never runs standup. It completes the program named " + bin + ".",
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErrorf("completion: name one shell: %s", strings.Join(cliargs.Shells(), ", "))
			}
			return writeCompletion(streams.Out, c.Args().First(), bin, c.App)
		},
	}, prog,
		"# bash, now",
		"source <("+bin+" completion bash)",
		"# zsh, for good (compinit must be loaded)",
		bin+" completion zsh > \"${fpath[1]}/_"+bin+"\"",
		"# fish, for good",
		bin+" completion fish > ~/.config/fish/completions/"+bin+".fish",
	)
}

func writeCompletion(w io.Writer, shell, bin string, app *cli.App) error {
	if !slices.Contains(cliargs.Shells(), shell) {
		return usageErrorf("completion: unknown shell %q (want %s)", shell, strings.Join(cliargs.Shells(), ", "))
	}
	script, err := cliargs.Completion(shell, bin, app, completionValues)
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, script)
	return err
}

// completionValues are the words standup's flags take: -o's formats from
// the printer registry (every format at the root, where the command is not
// known yet; audit --from-cluster's and audit --fix's after that flag),
// --kinds' kind words, and completion's shells.
func completionValues(command, flag string) []string {
	switch {
	case command == "completion" && flag == "":
		return cliargs.Shells()
	case flag == "output" && command == "":
		return allFormats()
	case flag == "output":
		if f, ok := formats().Of(command); ok {
			return f.Names
		}
	case flag == "kinds" && (command == "tiers" || command == "resume"):
		return flux.KindWords()
	}
	return nil
}

// allFormats is every -o name some command takes, in the registry's order.
func allFormats() []string {
	var names []string
	for _, command := range []string{"tiers", "audit", "audit --from-cluster", "audit --fix", "resume", "check", "crds", "version"} {
		f, _ := formats().Of(command)
		names = union(names, f.Names)
	}
	return names
}

func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

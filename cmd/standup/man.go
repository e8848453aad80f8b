package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/cpuguy83/go-md2man/v2/md2man"
	"github.com/urfave/cli/v2"
)

// manCommand is `standup __man DIR`, hidden: it writes a man page per
// command into DIR (make man), each the command's --help in man's sections,
// so that man and --help never disagree.
func manCommand(streams Streams) *cli.Command {
	return &cli.Command{
		Name:      "__man",
		Hidden:    true,
		Usage:     "write standup's man pages into DIR",
		ArgsUsage: "DIR",
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErrorf("__man: name the directory to write the man pages into")
			}
			pages, err := manPages(c.Context, c.App)
			if err != nil {
				return err
			}
			dir := c.Args().First()
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			for _, name := range slices.Sorted(maps.Keys(pages)) {
				path := filepath.Join(dir, name+".1")
				if err := os.WriteFile(path, pages[name], 0o644); err != nil {
					return err
				}
				fmt.Fprintln(streams.Out, path)
			}
			return nil
		},
	}
}

// manPages renders the man page of standup and of each of its commands,
// keyed by page name (standup-crds-capture), from the help the commands
// print as standup (whatever name this binary was invoked by).
func manPages(ctx context.Context, app *cli.App) (map[string][]byte, error) {
	var paths [][]string
	var walk func(prefix []string, cmds []*cli.Command)
	walk = func(prefix []string, cmds []*cli.Command) {
		for _, c := range cmds {
			if c.Hidden || c.Name == "help" {
				continue
			}
			path := append(append([]string{}, prefix...), c.Name)
			paths = append(paths, path)
			walk(path, c.Subcommands)
		}
	}
	walk(nil, app.Commands)
	names := []string{"standup"}
	for _, p := range paths {
		names = append(names, "standup-"+strings.Join(p, "-"))
	}
	pages := map[string][]byte{}
	for i, path := range append([][]string{nil}, paths...) {
		var help bytes.Buffer
		args := append(append([]string{"standup"}, path...), "--help")
		out := columnsWriter{Writer: &help, columns: manWidth}
		if err := Run(ctx, args, Streams{In: strings.NewReader(""), Out: out, Err: io.Discard}); err != nil {
			return nil, fmt.Errorf("help of %s: %w", strings.Join(args[:len(args)-1], " "), err)
		}
		seeAlso := names[:1]
		if i == 0 {
			seeAlso = names[1:]
		}
		pages[names[i]] = md2man.Render([]byte(helpToMarkdown(names[i], help.String(), seeAlso)))
	}
	return pages, nil
}

// manWidth is the width of the help a man page is made of: man indents
// a section's text by 7 columns, and help indents it by 3, which the page
// leaves out, so that the page fits 80 columns.
const manWidth = 80 - 7 + 3

// columnsWriter is a writer that states the width help is wrapped to on
// it (helpWidth).
type columnsWriter struct {
	io.Writer
	columns int
}

// Columns is the width to wrap to.
func (w columnsWriter) Columns() int { return w.columns }

// helpSection is a heading of the help: "FLAGS:", "CLUSTER FLAGS (with
// --from-cluster):".
var helpSection = regexp.MustCompile(`^([A-Z][A-Z ]*(?: \([^)]*\))?):$`)

// helpToMarkdown turns a command's --help into the Markdown of its man
// page: NAME as man wants it, USAGE as SYNOPSIS, DESCRIPTION as prose, the
// other sections (options, commands, examples) as they print, and SEE ALSO.
func helpToMarkdown(page, help string, seeAlso []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%% %s 1\n", page)
	section := ""
	var body []string
	flush := func() {
		if section == "" {
			return
		}
		text := strings.Trim(strings.Join(body, "\n"), "\n")
		switch section {
		case "NAME":
			_, usage, _ := strings.Cut(strings.Join(strings.Fields(text), " "), " - ")
			fmt.Fprintf(&b, "\n# NAME\n\n%s - %s\n", page, usage)
		case "USAGE":
			fmt.Fprintf(&b, "\n# SYNOPSIS\n\n```\n%s\n```\n", text)
		case "DESCRIPTION":
			fmt.Fprintf(&b, "\n# DESCRIPTION\n\n%s\n", text)
		default:
			fmt.Fprintf(&b, "\n# %s\n\n```\n%s\n```\n", section, text)
		}
	}
	for _, line := range strings.Split(help, "\n") {
		if m := helpSection.FindStringSubmatch(line); m != nil {
			flush()
			section, body = m[1], nil
			continue
		}
		body = append(body, strings.TrimPrefix(line, "   "))
	}
	flush()
	refs := make([]string, len(seeAlso))
	for i, s := range seeAlso {
		refs[i] = "**" + s + "**(1)"
	}
	fmt.Fprintf(&b, "\n# SEE ALSO\n\n%s\n", strings.Join(refs, ", "))
	return b.String()
}

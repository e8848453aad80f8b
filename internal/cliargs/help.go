package cliargs

import (
	"cmp"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
)

// DefaultWidth is the width help is wrapped to where the output is no
// terminal (a pipe, a file, a man page's source).
const DefaultWidth = 80

// HelpPage is what one command's help shows, section by section, as Help
// writes it.
type HelpPage struct {
	// Name is the command as typed: "standup crds capture".
	Name string
	// Usage says in one sentence what the command does.
	Usage string
	// Synopsis is the USAGE line: "standup tiers [flags]".
	Synopsis string
	// Description is prose: paragraphs apart by a blank line; a single
	// line break is a space, so that the text reflows to any width.
	Description string
	// Commands are the subcommands, listed with their Usage.
	Commands []*cli.Command
	// Flags are listed in sections: those without a category under
	// FLAGS, first, then one section per category (its name is the
	// heading), in the order the categories first appear.
	Flags []cli.Flag
	// Examples are comments ("# ...") each starting an example, and
	// command lines.
	Examples []string
}

// helpIndent is where every section's text starts.
const helpIndent = 3

// Help returns the page wrapped to width columns, in urfave/cli's layout
// (NAME, USAGE, DESCRIPTION, COMMANDS, the flag sections, EXAMPLES), each
// flag's description in a hanging column. A word longer than a line is
// left whole; a command line of an example is broken only outside quotes,
// with a shell continuation (" \").
func Help(p HelpPage, width int) string {
	var b strings.Builder
	section := func(heading string, lines []string) {
		if len(lines) == 0 {
			return
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(heading + ":\n")
		for _, l := range lines {
			b.WriteString(strings.TrimRight(l, " ") + "\n")
		}
	}
	name := p.Name
	if p.Usage != "" {
		name += " - " + p.Usage
	}
	section("NAME", wrap(name, width, helpIndent, helpIndent+len(p.Name)+3))
	section("USAGE", wrap(p.Synopsis, width, helpIndent, helpIndent+3))
	section("DESCRIPTION", paragraphs(p.Description, width))
	section("COMMANDS", commandLines(p.Commands, width))
	terms := flagTerms(p.Flags)
	col := flagColumn(terms, width)
	for _, s := range flagSections(p.Flags) {
		var lines []string
		for _, f := range s.flags {
			lines = append(lines, twoColumns(terms[f], flagUsage(f), width, col)...)
		}
		section(s.heading, lines)
	}
	section("EXAMPLES", exampleLines(p.Examples, width))
	return b.String()
}

// wrap fills text into lines of at most width columns: the first line
// starts at column first, the others at column hang.
func wrap(text string, width, first, hang int) []string {
	words := strings.Fields(text)
	if len(words) == 0 {
		return nil
	}
	var lines []string
	line := strings.Repeat(" ", first) + words[0]
	for _, w := range words[1:] {
		if columns(line)+1+columns(w) > width {
			lines = append(lines, line)
			line = strings.Repeat(" ", hang) + w
			continue
		}
		line += " " + w
	}
	return append(lines, line)
}

// columns is the width of s on a terminal: a cell per rune (standup's
// help has no wide characters).
func columns(s string) int { return len([]rune(s)) }

// paragraphs wraps prose: a blank line between paragraphs, single line
// breaks reflowed.
func paragraphs(text string, width int) []string {
	var lines []string
	for i, p := range strings.Split(strings.TrimSpace(text), "\n\n") {
		if i > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, wrap(p, width, helpIndent, helpIndent)...)
	}
	return lines
}

// commandLines lists commands (hidden ones and urfave's help command left
// out) with their usage in a hanging column.
func commandLines(cmds []*cli.Command, width int) []string {
	terms := map[*cli.Command]string{}
	longest := 0
	for _, c := range cmds {
		if c.Hidden || c.Name == "help" {
			continue
		}
		terms[c] = strings.Join(c.Names(), ", ")
		longest = max(longest, columns(terms[c]))
	}
	var lines []string
	for _, c := range cmds {
		if term, ok := terms[c]; ok {
			lines = append(lines, twoColumns(term, c.Usage, width, helpIndent+longest+2)...)
		}
	}
	return lines
}

// twoColumns writes term at the section's indent and text from column col,
// wrapped under itself; a term that reaches col puts text on the next line.
func twoColumns(term, text string, width, col int) []string {
	head := strings.Repeat(" ", helpIndent) + term
	if text == "" {
		return []string{head}
	}
	if columns(head)+2 > col {
		return append([]string{head}, wrap(text, width, col, col)...)
	}
	lines := wrap(text, width, col, col)
	lines[0] = head + lines[0][columns(head):]
	return lines
}

// flagSection is one heading's flags.
type flagSection struct {
	heading string
	flags   []cli.Flag
}

// flagSections groups the visible flags by category, FLAGS first.
func flagSections(flags []cli.Flag) []flagSection {
	sections := []flagSection{{heading: "FLAGS"}}
	at := map[string]int{"": 0}
	for _, f := range flags {
		if v, ok := f.(cli.VisibleFlag); ok && !v.IsVisible() {
			continue
		}
		category := ""
		if c, ok := f.(cli.CategorizableFlag); ok {
			category = c.GetCategory()
		}
		i, ok := at[category]
		if !ok {
			i = len(sections)
			at[category] = i
			sections = append(sections, flagSection{heading: category})
		}
		sections[i].flags = append(sections[i].flags, f)
	}
	return sections
}

// flagTerms are the flags as typed, short names first, with the
// placeholder of their value: "-n, --namespace NAMESPACE". When any flag
// has a short name, the others are indented to line their long names up.
func flagTerms(flags []cli.Flag) map[cli.Flag]string {
	anyShort := false
	for _, f := range flags {
		for _, n := range f.Names() {
			anyShort = anyShort || len(n) == 1
		}
	}
	terms := make(map[cli.Flag]string, len(flags))
	for _, f := range flags {
		var short, long []string
		for _, n := range f.Names() {
			if len(n) == 1 {
				short = append(short, "-"+n)
			} else {
				long = append(long, "--"+n)
			}
		}
		term := strings.Join(append(short, long...), ", ")
		if anyShort && len(short) == 0 {
			term = "    " + term
		}
		if name, _ := placeholder(f); name != "" {
			term += " " + name
		}
		terms[f] = term
	}
	return terms
}

// flagColumn is where the flags' descriptions start: two columns after
// the longest term, unless that would leave the descriptions too narrow
// a column; a longer term puts its description on the next line.
func flagColumn(terms map[cli.Flag]string, width int) int {
	limit := min(30, max(12, width*3/8))
	longest := 0
	for _, t := range terms {
		if n := columns(t); n <= limit {
			longest = max(longest, n)
		}
	}
	return helpIndent + longest + 2
}

// placeholder returns the name shown for a flag's value, and its usage
// without the backquotes that name it: urfave/cli's convention, a word of
// the usage in backquotes ("path to the `FILE`"). Without one, a
// duration is DURATION, a number N, a path PATH, and any other value the
// flag's name in capitals. A flag that takes no value has none.
func placeholder(f cli.Flag) (name, usage string) {
	d, ok := f.(cli.DocGenerationFlag)
	if !ok {
		return "", ""
	}
	usage = d.GetUsage()
	if start := strings.Index(usage, "`"); start >= 0 {
		if end := strings.Index(usage[start+1:], "`"); end >= 0 {
			name = usage[start+1 : start+1+end]
			usage = usage[:start] + name + usage[start+1+end+1:]
		}
	}
	if !d.TakesValue() || name != "" {
		return name, usage
	}
	switch f := f.(type) {
	case *cli.DurationFlag:
		return "DURATION", usage
	case *cli.IntFlag, *cli.Int64Flag, *cli.UintFlag:
		return "N", usage
	case *cli.StringFlag:
		if f.TakesFile {
			return "PATH", usage
		}
	}
	return strings.ToUpper(f.Names()[0]), usage
}

// flagUsage is a flag's description: its usage, and its default when it
// has one worth saying (not false, zero or empty) that the usage does not
// state already.
func flagUsage(f cli.Flag) string {
	_, usage := placeholder(f)
	def := defaultOf(f)
	if def == "" || strings.Contains(usage, "(default") {
		return usage
	}
	return usage + " (default: " + def + ")"
}

// defaultOf is a flag's default as help states it: its DefaultText, else
// its value unless zero.
func defaultOf(f cli.Flag) string {
	switch f := f.(type) {
	case *cli.StringFlag:
		return cmp.Or(f.DefaultText, f.Value)
	case *cli.StringSliceFlag:
		if f.DefaultText == "" && f.Value != nil {
			return strings.Join(f.Value.Value(), ",")
		}
		return f.DefaultText
	case *cli.DurationFlag:
		if f.DefaultText == "" && f.Value != 0 {
			return f.Value.String()
		}
		return f.DefaultText
	case *cli.IntFlag:
		if f.DefaultText == "" && f.Value != 0 {
			return strconv.Itoa(f.Value)
		}
		return f.DefaultText
	}
	return ""
}

// exampleLines writes the examples: a blank line before each comment but
// the first, comments wrapped as comments, command lines broken where
// they must be.
func exampleLines(examples []string, width int) []string {
	indent := strings.Repeat(" ", helpIndent)
	var lines []string
	for i, e := range examples {
		comment, ok := strings.CutPrefix(e, "#")
		if !ok {
			lines = append(lines, commandLine(e, width)...)
			continue
		}
		if i > 0 {
			lines = append(lines, "")
		}
		for _, l := range wrap(comment, width-2, helpIndent, helpIndent) {
			lines = append(lines, indent+"# "+strings.TrimSpace(l))
		}
	}
	return lines
}

// commandLine writes a shell command; one longer than width is broken at
// spaces outside quotes, each line but the last ending in " \", the next
// indented more.
func commandLine(cmd string, width int) []string {
	indent := strings.Repeat(" ", helpIndent)
	if columns(indent+cmd) <= width {
		return []string{indent + cmd}
	}
	const more = 4
	words := shellWords(cmd)
	var lines []string
	line := indent + words[0]
	for _, w := range words[1:] {
		if columns(line)+1+columns(w)+len(" \\") > width {
			lines = append(lines, line+" \\")
			line = indent + strings.Repeat(" ", more) + w
			continue
		}
		line += " " + w
	}
	return append(lines, line)
}

// shellWords splits a command line at the spaces outside quotes; quoted
// text, spaces and all, stays in its word.
func shellWords(cmd string) []string {
	var words []string
	var word strings.Builder
	var quote rune
	for _, r := range cmd {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == ' ':
			if word.Len() > 0 {
				words = append(words, word.String())
				word.Reset()
			}
			continue
		}
		word.WriteRune(r)
	}
	if word.Len() > 0 {
		words = append(words, word.String())
	}
	return words
}

package hygiene

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// A measured figure, as docs write one: a decimal with a unit of time,
// memory or ratio ("42.3 s", "108.5 MiB", "1.6×"), an integer with a
// sub-second unit or "×" ("40 ms", "3×"), or a bare decimal ("1.37",
// "1.21–1.64"). Integers with "s" or "MiB" are left out: in prose they are
// settings and limits ("every 30 s", "16 MiB"), not measurements. Versions
// ("v1.9.6", "Go 1.26") are left out by what precedes them.
var measuredFigure = regexp.MustCompile(`(?:^|[^\w.v/@-])(\d+\.\d+\s?(?:s|ms|µs|ns|MiB|MB|GiB|GB|KiB|×|x|%)|\d+\s?(?:ms|µs|ns|×)|\d+\.\d+(?:–\d+\.\d+)?)(?:$|[^\w.])`)

// versionBefore are the words after which a decimal is a version.
var versionBefore = regexp.MustCompile(`(?i)(go|kubernetes|flux|helm|gitlab|api|release|version|k8s\.io|v)\s*$`)

// Figure is a measured figure a document states outside a generated block.
type Figure struct {
	Line int
	Text string // the figure as written
}

// FiguresOutsideBlocks lists the measured figures of a Markdown document
// that stand outside its generated blocks (between `<!-- NAME begin -->` and
// `<!-- NAME end -->`), code fences and code spans. A figure a script
// produced lives in a block, under the line naming its commit and command;
// prose refers to it instead of copying it.
func FiguresOutsideBlocks(doc io.Reader) ([]Figure, error) {
	var found []Figure
	block, fence := "", false
	sc := bufio.NewScanner(doc)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if m := markerRE.FindStringSubmatch(line); m != nil {
			switch {
			case m[2] == "begin" && block != "":
				return nil, fmt.Errorf("line %d: block %s begins inside block %s", n, m[1], block)
			case m[2] == "begin":
				block = m[1]
			case m[1] != block:
				return nil, fmt.Errorf("line %d: block %s ends, but %q is open", n, m[1], block)
			default:
				block = ""
			}
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
			continue
		}
		if block != "" || fence {
			continue
		}
		text := codeSpan.ReplaceAllString(line, "``")
		for _, loc := range measuredFigure.FindAllStringSubmatchIndex(text, -1) {
			if versionBefore.MatchString(text[:loc[2]]) {
				continue
			}
			found = append(found, Figure{Line: n, Text: text[loc[2]:loc[3]]})
		}
	}
	if block != "" {
		return nil, fmt.Errorf("block %s has no end marker", block)
	}
	return found, sc.Err()
}

var (
	markerRE = regexp.MustCompile(`^<!-- ([a-z0-9:_-]+) (begin|end) -->$`)
	codeSpan = regexp.MustCompile("`[^`]*`")
)

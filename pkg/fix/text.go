package fix

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// text is a file's bytes with where each line starts: the edits are
// splices of those bytes, never a new rendering of the document.
type text struct {
	src []byte
	// starts holds the offset of each line's first byte, line 1 first.
	starts []int
	// nl is the file's line ending: "\r\n" when its first line ends so.
	nl string
}

func newText(src []byte) *text {
	t := &text{src: src, starts: []int{0}, nl: "\n"}
	for i, b := range src {
		if b == '\n' && i+1 < len(src) {
			t.starts = append(t.starts, i+1)
		}
	}
	if i := bytes.IndexByte(src, '\n'); i > 0 && src[i-1] == '\r' {
		t.nl = "\r\n"
	}
	return t
}

// lines counts the file's lines.
func (t *text) lines() int { return len(t.starts) }

// line returns line n (1-based) without its line ending; "" past the end.
func (t *text) line(n int) string {
	if n < 1 || n > len(t.starts) {
		return ""
	}
	end := len(t.src)
	if n < len(t.starts) {
		end = t.starts[n]
	}
	return strings.TrimRight(string(t.src[t.starts[n-1]:end]), "\r\n")
}

// offset is the byte offset of 1-based line and column, the column counted
// in characters as the YAML parser counts it.
func (t *text) offset(line, column int) int {
	off := t.starts[line-1]
	for i := 1; i < column && off < len(t.src) && t.src[off] != '\n'; i++ {
		_, size := utf8.DecodeRune(t.src[off:])
		off += size
	}
	return off
}

// indent counts the spaces that start line n; -1 for a blank line.
func (t *text) indent(n int) int {
	l := t.line(n)
	trimmed := strings.TrimLeft(l, " ")
	if strings.TrimSpace(trimmed) == "" {
		return -1
	}
	return len(l) - len(trimmed)
}

// isComment reports whether line n holds only a comment.
func (t *text) isComment(n int) bool {
	return strings.HasPrefix(strings.TrimSpace(t.line(n)), "#")
}

// insertAfter returns the file with lines (each without its ending)
// inserted after line n.
func (t *text) insertAfter(n int, lines []string) []byte {
	block := strings.Join(lines, t.nl) + t.nl
	if n >= len(t.starts) {
		// After the last line: it may lack its line ending.
		if len(t.src) > 0 && t.src[len(t.src)-1] != '\n' {
			block = t.nl + strings.TrimSuffix(block, t.nl)
		}
		return splice(t.src, len(t.src), len(t.src), block)
	}
	return splice(t.src, t.starts[n], t.starts[n], block)
}

// splice replaces src[from:to] with s, in a new slice.
func splice(src []byte, from, to int, s string) []byte {
	out := make([]byte, 0, len(src)-(to-from)+len(s))
	out = append(out, src[:from]...)
	out = append(out, s...)
	return append(out, src[to:]...)
}

// safePlain matches the values written without quotes: Kubernetes names
// and apiVersions that no YAML reader takes for anything but a string.
var safePlain = regexp.MustCompile(`^[A-Za-z0-9]([-A-Za-z0-9._/]*[A-Za-z0-9])?$`)

// notStrings are the plain words YAML 1.1 or 1.2 read as booleans or null.
var notStrings = map[string]bool{"y": true, "yes": true, "n": true, "no": true, "on": true, "off": true,
	"true": true, "false": true, "null": true}

// quote writes value as a YAML scalar in style: "double", "single", or
// plain when the value reads back as the same string, else double quoted.
func quote(value, style string) string {
	switch style {
	case "double":
		return strconv.Quote(value)
	case "single":
		return "'" + strings.ReplaceAll(value, "'", "''") + "'"
	}
	if safePlain.MatchString(value) && !notStrings[strings.ToLower(value)] && !isNumber(value) {
		return value
	}
	return strconv.Quote(value)
}

// isNumber reports whether a plain value would read as a number: digits,
// a sign, a point, an exponent, 0x and 0o forms, 1_000 (YAML 1.1).
func isNumber(value string) bool {
	v := strings.ReplaceAll(value, "_", "")
	if _, err := strconv.ParseFloat(v, 64); err == nil {
		return true
	}
	_, err := strconv.ParseInt(v, 0, 64)
	return err == nil
}

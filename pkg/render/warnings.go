package render

import (
	"regexp"
	"strings"
)

// WarningGroup is the warnings of Result.Warnings that share a shape: the
// same message about the same kind of subject but for the particulars it
// names (an object, a variable, a file, a URL, a number), as audit groups
// the places of a finding.
type WarningGroup struct {
	// Noun is what the subjects are, in the singular: their kind
	// ("Kustomization") when each is an object, else "file"; "" for a
	// warning with no subject.
	Noun string
	// Shape is the message after its subject, each particular written "…"
	// (an object keeps its kind: "Secret/…").
	Shape string
	// Subjects are what the warnings are about, each once, in the order of
	// the warnings: the part of each before its first ": ".
	Subjects []string
	// Warnings are the group's warnings as Result.Warnings holds them, in
	// its order.
	Warnings []string
}

// particular matches what a warning names rather than says, leftmost
// first: a variable as written, a URL, an object (its kind kept), any
// other slash-separated path, a generator's name, a number.
var particular = regexp.MustCompile(`\$\{[^}]*\}` +
	`|[a-z][a-z0-9+.-]*://[^\s,;()]+` +
	`|\b([A-Z][A-Za-z0-9]*)/[^\s,;()]+` +
	`|[^\s,;()]*/[^\s,;()]*` +
	`|\b((?:configMap|secret)Generator) [^\s,;()]+` +
	`|\b[0-9]+\b`)

// subjectKind matches a subject that is an object: Kind/namespace/name.
var subjectKind = regexp.MustCompile(`^([A-Z][A-Za-z0-9]*)/`)

// shapeOf splits a warning into its subject and its shape, and names what
// the subject is.
func shapeOf(w string) (subject, noun, shape string) {
	subject, detail, ok := strings.Cut(w, ": ")
	if !ok {
		subject, detail = "", w
	}
	switch m := subjectKind.FindStringSubmatch(subject); {
	case m != nil:
		noun = m[1]
	case subject != "":
		noun = "file"
	}
	var b strings.Builder
	last, prev := 0, ""
	for _, m := range particular.FindAllStringSubmatchIndex(detail, -1) {
		var repl string
		switch {
		case strings.HasPrefix(detail[m[0]:], "${"):
			repl = "${…}"
		case m[2] >= 0: // an object: its kind kept
			repl = detail[m[2]:m[3]] + "/…"
		case m[4] >= 0: // a generator: its name left out
			repl = detail[m[4]:m[5]] + " …"
		default:
			repl = "…"
		}
		// A list of particulars alike is one: "${A/./-}, ${A}" is "${…}".
		if !(repl == prev && detail[last:m[0]] == ", ") {
			b.WriteString(detail[last:m[0]] + repl)
		}
		last, prev = m[1], repl
	}
	b.WriteString(detail[last:])
	shape = b.String()
	return subject, noun, shape
}

// GroupWarnings groups warnings (Result.Warnings) by shape, each group in
// the order of its first warning: the hundreds of warnings of a repository
// whose variables come from SOPS-encrypted Secrets are a few kinds of
// warning, each about many Kustomizations. A warning with no subject
// (before its first ": ") is a group of its own.
func GroupWarnings(warnings []string) []WarningGroup {
	var groups []WarningGroup
	index := map[string]int{}
	seen := map[string]bool{}
	for _, w := range warnings {
		subject, noun, shape := shapeOf(w)
		key := noun + "\x00" + shape
		if subject == "" {
			key = "\x00" + w
		}
		i, ok := index[key]
		if !ok {
			i = len(groups)
			index[key] = i
			groups = append(groups, WarningGroup{Noun: noun, Shape: shape})
		}
		g := &groups[i]
		g.Warnings = append(g.Warnings, w)
		if subject != "" && !seen[key+"\x00"+subject] {
			seen[key+"\x00"+subject] = true
			g.Subjects = append(g.Subjects, subject)
		}
	}
	return groups
}

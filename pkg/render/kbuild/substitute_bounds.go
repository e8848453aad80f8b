package kbuild

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/fluxcd/pkg/envsubst/parse"
)

// Flux's envsubst is not linear in every input, and kustomize-controller
// shares its costs; the offline view bounds them rather than hang. Above
// either limit, the object's Kustomization fails alone (a *input.LimitError).
const (
	// maxSubstituteRefs bounds the ${...} references of one object: 200,000.
	// envsubst's parser recurses once per reference, so that a 16 MiB file of
	// "${a}" would take gigabytes of stack and crash the process. A large
	// Grafana dashboard holds a few hundred.
	maxSubstituteRefs = 200_000
	// maxEscapeWork bounds the $$ escapes of one object times its size: 1e10.
	// envsubst copies the rest of the text for each escape it removes: a
	// 1 MiB ConfigMap with 10,000 escapes costs 1e10 bytes copied, seconds.
	maxEscapeWork = 10_000_000_000
)

// substituteLimit is an object over a limit of substitution; postBuild
// names the object and its file.
type substituteLimit struct{ reason string }

func (e *substituteLimit) Error() string { return e.reason }

// checkSubstitution refuses an object whose substitution would exceed
// maxSubstituteRefs or maxEscapeWork.
func checkSubstitution(text string) error {
	if refs := strings.Count(text, "${"); refs > maxSubstituteRefs {
		return &substituteLimit{fmt.Sprintf("%d ${...} references, over the %d that substitution is bounded to", refs, maxSubstituteRefs)}
	}
	if escapes := strings.Count(text, "$$"); int64(escapes)*int64(len(text)) > maxEscapeWork {
		return &substituteLimit{fmt.Sprintf("%d escaped $$ in %d bytes: substitution copies the rest of the text for each one", escapes, len(text))}
	}
	return nil
}

// A placeholder stands for a reference kept as written while envsubst
// runs: private-use characters around the reference's index, which
// envsubst leaves alone.
const (
	keepOpen  = "\uE000"
	keepClose = "\uE001"
)

// kept matches a placeholder.
var kept = regexp.MustCompile(`\x{E000}([0-9]+)\x{E001}`)

// keepUnresolved replaces every reference that substitution cannot resolve
// (its variable is one of names, and its operator supplies no value of its
// own: ${NAME}, ${NAME/./-}, ${NAME^^}... but not ${NAME:=default}) with a
// placeholder that envsubst leaves alone, and returns the function that
// puts each reference back, as written, into envsubst's output, and the
// distinct references to each name, in order. Escaping them instead
// ($${NAME}) costs envsubst a copy of the rest of the text per escape
// (quadratic in a large ConfigMap of dashboards, whose ${variables} are not
// postBuild's); a text that holds the placeholder characters already is
// escaped all the same (escapeUnresolved).
func keepUnresolved(text string, names []string) (string, func(string) string, map[string][]string) {
	same := func(s string) string { return s }
	forms := map[string][]string{}
	if len(names) == 0 {
		return text, same, forms
	}
	note := func(ref, name string) {
		if !slices.Contains(forms[name], ref) {
			forms[name] = append(forms[name], ref)
		}
	}
	if strings.Contains(text, keepOpen) || strings.Contains(text, keepClose) {
		return walkUnresolved(text, setOf(names), false, func(ref, name string) string {
			note(ref, name)
			return "$" + ref
		}), same, forms
	}
	var refs []string
	text = walkUnresolved(text, setOf(names), false, func(ref, name string) string {
		note(ref, name)
		refs = append(refs, ref)
		return keepOpen + strconv.Itoa(len(refs)-1) + keepClose
	})
	if len(refs) == 0 {
		return text, same, forms
	}
	return text, func(out string) string {
		return kept.ReplaceAllStringFunc(out, func(m string) string {
			i, err := strconv.Atoi(m[len(keepOpen) : len(m)-len(keepClose)])
			if err != nil || i >= len(refs) {
				return m
			}
			return refs[i]
		})
	}, forms
}

// escapeUnresolved escapes every reference keepUnresolved keeps as $${...},
// which envsubst turns back into the reference as written (a reference
// nested in it is still substituted). keepUnresolved is preferred:
// envsubst pays for each escape with a copy of the rest of the text.
func escapeUnresolved(text string, names []string) string {
	if len(names) == 0 {
		return text
	}
	return walkUnresolved(text, setOf(names), false, func(ref, _ string) string { return "$" + ref })
}

func setOf(names []string) map[string]bool {
	set := make(map[string]bool, len(names))
	for _, n := range names {
		set[n] = true
	}
	return set
}

// walkUnresolved returns text with every unresolved reference replaced by
// keep(reference, its variable). It finds references as envsubst's scanner does: "${"
// after an odd run of "$" ("$$" is an escaped "$"), to the "}" that closes
// it, nested references counted; inside a function's arguments (inArgs)
// a backslash escapes the next character too. A reference is unresolved
// when envsubst parses it as a function of a variable of names whose
// operator supplies no value, or, where envsubst cannot parse it, when it
// is ${NAME} of such a name; any other reference is kept and searched for
// unresolved ones inside.
func walkUnresolved(text string, names map[string]bool, inArgs bool, keep func(ref, name string) string) string {
	stops := "$"
	if inArgs {
		stops = "$\\"
	}
	var out strings.Builder
	for i := 0; i < len(text); {
		c := text[i]
		if c == '\\' && inArgs && i+1 < len(text) {
			out.WriteString(text[i : i+2])
			i += 2
			continue
		}
		if c != '$' {
			next := i + 1
			if j := strings.IndexAny(text[next:], stops); j >= 0 {
				next += j
			} else {
				next = len(text)
			}
			out.WriteString(text[i:next])
			i = next
			continue
		}
		run := i
		for run < len(text) && text[run] == '$' {
			run++
		}
		if (run-i)%2 == 0 || run == len(text) || text[run] != '{' {
			out.WriteString(text[i:run])
			i = run
			continue
		}
		end := refEnd(text, run+1)
		if end < 0 {
			out.WriteString(text[i:])
			break
		}
		out.WriteString(text[i : run-1])
		ref := text[run-1 : end+1]
		if name, ok := unresolvedRef(ref, names); ok {
			out.WriteString(keep(ref, name))
		} else {
			out.WriteString("${" + walkUnresolved(ref[2:len(ref)-1], names, true, keep) + "}")
		}
		i = end + 1
	}
	return out.String()
}

// refEnd returns the index of the "}" that closes the reference whose
// content starts at start, or -1.
func refEnd(text string, start int) int {
	depth := 1
	for i := start; i < len(text); i++ {
		switch text[i] {
		case '\\':
			i++
		case '$':
			run := i
			for run < len(text) && text[run] == '$' {
				run++
			}
			if (run-i)%2 == 1 && run < len(text) && text[run] == '{' {
				depth++
				run++
			}
			i = run - 1
		case '}':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// unresolvedRef reports whether ref ("${...}") reads a variable of names
// without supplying a value of its own, and returns that variable.
func unresolvedRef(ref string, names map[string]bool) (string, bool) {
	tree, err := parse.Parse(ref)
	if err != nil {
		inner := ref[2 : len(ref)-1]
		return inner, names[inner] && !strings.ContainsAny(inner, "${}")
	}
	fn, ok := tree.Root.(*parse.FuncNode)
	if !ok {
		return "", false
	}
	return fn.Param, names[fn.Param] && !isDefaultOp(fn.Name)
}

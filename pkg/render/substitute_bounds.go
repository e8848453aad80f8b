package render

import (
	"fmt"
	"regexp"
	"strings"
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

// Placeholders that stand for a bare ${NAME} while envsubst runs: private-use
// characters, which envsubst leaves alone.
const (
	keepOpen  = "\uE000"
	keepClose = "\uE001"
)

// kept matches a placeholder.
var kept = regexp.MustCompile(`\x{E000}[^\x{E000}\x{E001}]*\x{E001}`)

// keepBare replaces every bare ${NAME} reference to one of names (an odd run
// of $ before it) with a placeholder that envsubst leaves alone, and returns
// the function that puts ${NAME} back in envsubst's output: the effect of
// escapeBare without the escapes, each of which costs envsubst a copy of the
// rest of the text (quadratic in a large ConfigMap of dashboards, whose
// ${variables} are not postBuild's). A text that holds the placeholder
// characters already is escaped instead.
func keepBare(text string, names []string) (string, func(string) string) {
	same := func(s string) string { return s }
	if len(names) == 0 {
		return text, same
	}
	if strings.Contains(text, keepOpen) || strings.Contains(text, keepClose) {
		return escapeBare(text, names), same
	}
	plain, odd := splitNames(names)
	text = bareRef.ReplaceAllStringFunc(text, func(m string) string {
		// m is a run of $, then {NAME}; run-1 of them stay, escaping each other.
		if run := strings.IndexByte(m, '{'); run%2 == 1 && plain[m[run+1:len(m)-1]] {
			return m[:run-1] + keepOpen + m[run+1:len(m)-1] + keepClose
		}
		return m
	})
	if len(odd) > 0 {
		text = escapeBare(text, odd)
	}
	return text, func(out string) string {
		return kept.ReplaceAllStringFunc(out, func(m string) string {
			return "${" + strings.TrimSuffix(strings.TrimPrefix(m, keepOpen), keepClose) + "}"
		})
	}
}

// escapeBare escapes every bare ${NAME} reference to one of names as $${NAME},
// which envsubst turns back into the literal ${NAME}. A reference already
// escaped (preceded by an odd number of extra $) is left alone. It makes one
// pass over text for all the names. keepBare is preferred: envsubst pays for
// each escape with a copy of the rest of the text.
func escapeBare(text string, names []string) string {
	if len(names) == 0 {
		return text
	}
	plain, odd := splitNames(names)
	escape := func(m string) string {
		// m is a run of $, then {NAME}.
		if run := strings.IndexByte(m, '{'); run%2 == 1 && plain[m[run+1:len(m)-1]] {
			return "$" + m
		}
		return m
	}
	text = bareRef.ReplaceAllStringFunc(text, escape)
	for _, name := range odd {
		re := regexp.MustCompile(`(\$+)\{` + regexp.QuoteMeta(name) + `\}`)
		text = re.ReplaceAllStringFunc(text, func(m string) string {
			if run := strings.Count(m, "$"); run%2 == 1 {
				return "$" + m
			}
			return m
		})
	}
	return text
}

// bareRef matches a ${NAME} reference and the run of $ before it, for a
// NAME without $, { or }.
var bareRef = regexp.MustCompile(`(\$+)\{[^${}]*\}`)

// splitNames separates the names a single pattern can match (plain) from
// those holding "$", "{" or "}", which need a pattern of their own.
func splitNames(names []string) (plain map[string]bool, odd []string) {
	plain = map[string]bool{}
	for _, name := range names {
		if strings.ContainsAny(name, "${}") {
			odd = append(odd, name)
			continue
		}
		plain[name] = true
	}
	return plain, odd
}

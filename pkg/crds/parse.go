package crds

import (
	"regexp"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ObjectRef names one object of a Kustomization's build, as kustomize-controller
// prints it: Kind/namespace/name, or Kind/name when it is cluster-scoped.
type ObjectRef struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

// String renders the reference the way fluxcd/pkg/ssa does (ssa.FmtObjMetadata).
func (o ObjectRef) String() string {
	if o.Namespace == "" {
		return o.Kind + "/" + o.Name
	}
	return o.Kind + "/" + o.Namespace + "/" + o.Name
}

// IsZero reports whether the reference is empty, which is the case when a
// message names a missing kind but not the object that uses it.
func (o ObjectRef) IsZero() bool { return o == ObjectRef{} }

// MissingKind is one object that failed its server-side dry-run because the
// API server does not serve its kind.
type MissingKind struct {
	// Object is the object that failed; zero when the message does not name it.
	Object ObjectRef `json:"object"`
	// Group is the API group of the missing kind; "" is the core group when
	// GroupKnown is true.
	Group string `json:"group"`
	// Version is the API version the object asked for; "" when unknown.
	Version string `json:"version,omitempty"`
	// Kind is the missing kind; "" when the message names neither the kind
	// nor the object.
	Kind string `json:"kind,omitempty"`
	// Resource is the plural resource name, when the message names it.
	Resource string `json:"resource,omitempty"`
	// GroupKnown is false when the message does not say which group is
	// missing (the bare "the server could not find the requested resource").
	GroupKnown bool `json:"groupKnown"`
}

// GroupKind returns the missing group and kind.
func (m MissingKind) GroupKind() schema.GroupKind {
	return schema.GroupKind{Group: m.Group, Kind: m.Kind}
}

// APIVersion returns group/version, or the version alone for the core group,
// or "" when the version is unknown.
func (m MissingKind) APIVersion() string {
	if m.Version == "" {
		return ""
	}
	return schema.GroupVersion{Group: m.Group, Version: m.Version}.String()
}

var (
	// failureRE finds the start of one failing object in a message. It knows
	// every prefix fluxcd/pkg/ssa has used for a failed dry-run:
	//   Kind/ns/name dry-run failed: ...              (ssa DryRunErr, Flux 2.x)
	//   Kind/ns/name dry-run failed (Reason): ...     (ssa DryRunErr with an API reason)
	//   Kind/ns/name dry-run failed, error: ...       (older ssa)
	//   Kind/ns/name apply dry-run failed, error: ... (oldest ssa)
	//   Kind/ns/name not found: ...                   (ssa DryRunErr on NotFound)
	//   Kind/name namespace not specified: ...        (ssa DryRunErr on NotFound, no namespace)
	failureRE = regexp.MustCompile(
		`(?:([A-Za-z][A-Za-z0-9]*(?:/[^\s/\[\](),"']+){1,2})\s+)?(?:apply\s+)?` +
			`(dry-run failed(?:\s*\([A-Za-z]*\))?(?:,\s*error)?|not found|namespace not specified):`)

	// noKindRE is meta.NoKindMatchError in its three forms. The closing
	// quotes are optional: `kubectl get` and some UIs truncate the message.
	noKindRE = regexp.MustCompile(`no matches for kind "([^"\s]*)"?\s+in\s+` +
		`(?:version\s+"([^"\s]*)"?|versions\s+\[([^\]]*)\]|group\s+"([^"\s]*)"?)`)

	// discoveryRE is one entry of controller-runtime's ErrResourceDiscoveryFailed
	// ("unable to retrieve the complete list of server APIs: g/v: err, ...")
	// whose error says that the group version is not served.
	discoveryRE = regexp.MustCompile(`([a-z0-9][a-z0-9.\-]*)/([a-z0-9]+):\s+` +
		`(?:the server could not find the requested resource|no matches for )`)

	// noResourceRE is meta.NoResourceMatchError: "no matches for g/v, Resource=r".
	noResourceRE = regexp.MustCompile(`no matches for ([^\s,/"]*)/([^\s,/"]*), Resource=([^\s,"]*)`)

	// notFoundRE is the generic 404 text of an API status error, with the
	// "(verb resource.group name)" suffix client-go adds when it knows them.
	notFoundRE = regexp.MustCompile(`the server could not find the requested resource` +
		`(?:\s+\(([a-z]+)\s+([^\s()]+)(?:\s+[^\s()]+)?\))?`)

	quotedRE = regexp.MustCompile(`"([^"]*)"`)
)

const discoveryMarker = "unable to retrieve the complete list of server APIs"

// ParseDryRunFailures returns every object that a kustomize-controller message
// reports as failing its dry-run because the API server does not serve its
// kind: `Kind/ns/name dry-run failed: no matches for kind "K" in version "G/V"`,
// the older `dry-run failed, error: no matches for kind ...`, the discovery
// failure `unable to retrieve the complete list of server APIs: G/V: the
// server could not find the requested resource`, and the bare `the server
// could not find the requested resource` on a namespaced object (where only
// the object's kind, and perhaps the group, is known).
//
// The message may span several lines and carry a change-set log; other
// failures (a webhook, a schema error, a health check) are ignored. The result
// has no duplicates and is sorted by group, kind, version, then object, so the
// same message always yields the same slice. It is nil when nothing matches.
func ParseDryRunFailures(message string) []MissingKind {
	var out []MissingKind
	for _, line := range strings.Split(message, "\n") {
		out = append(out, parseLine(line)...)
	}
	return dedupe(out)
}

// parseLine parses every failure on one line. A failure's cause runs from its
// marker to the start of the next failure on the line, or to the line's end.
func parseLine(line string) []MissingKind {
	locs := failureRE.FindAllStringSubmatchIndex(line, -1)
	var out []MissingKind
	for i, loc := range locs {
		end := len(line)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		obj := ObjectRef{}
		if loc[2] >= 0 {
			obj = parseObjectRef(line[loc[2]:loc[3]])
		}
		marker := line[loc[4]:loc[5]]
		cause := line[loc[1]:end]
		if strings.HasPrefix(marker, "dry-run failed") {
			out = append(out, parseCause(obj, cause)...)
			continue
		}
		// "not found" is also written when the object's namespace does not
		// exist: only the 404 of an unserved resource is a missing kind.
		// "namespace not specified" never is (see parseNotFound).
		if marker == "not found" {
			if m, ok := parseNotFound(obj, cause); ok {
				out = append(out, m)
			}
		}
	}
	return out
}

// parseCause recognises the underlying error of a failed dry-run.
func parseCause(obj ObjectRef, cause string) []MissingKind {
	if m := noKindRE.FindStringSubmatch(cause); m != nil {
		return []MissingKind{fromNoKind(obj, m)}
	}
	if i := strings.Index(cause, discoveryMarker); i >= 0 {
		var out []MissingKind
		for _, m := range discoveryRE.FindAllStringSubmatch(cause[i+len(discoveryMarker):], -1) {
			out = append(out, MissingKind{Object: obj, Group: m[1], Version: m[2], Kind: obj.Kind, GroupKnown: true})
		}
		if len(out) > 0 {
			return out
		}
	}
	if m := noResourceRE.FindStringSubmatch(cause); m != nil {
		return []MissingKind{{Object: obj, Group: m[1], Version: m[2], Kind: obj.Kind, Resource: m[3], GroupKnown: true}}
	}
	if m, ok := parseNotFound(obj, cause); ok {
		return []MissingKind{m}
	}
	return nil
}

// fromNoKind builds a MissingKind from a noKindRE match.
func fromNoKind(obj ObjectRef, m []string) MissingKind {
	mk := MissingKind{Object: obj, Kind: m[1], GroupKnown: true}
	switch {
	case m[2] != "":
		mk.Group, mk.Version = splitGroupVersion(m[2])
	case m[3] != "":
		// versions ["g/v1" "g/v2"]: every entry has the same group.
		if q := quotedRE.FindStringSubmatch(m[3]); q != nil {
			mk.Group, mk.Version = splitGroupVersion(q[1])
		} else {
			mk.GroupKnown = false
		}
	default:
		mk.Group = m[4]
	}
	if mk.Kind == "" {
		mk.Kind = obj.Kind
	}
	return mk
}

// parseNotFound recognises the generic 404 of an unserved resource. The kind
// is the object's; the group is known only from the "(verb resource.group
// name)" suffix.
//
// The object must be namespaced: the same 404 answers a namespaced object
// applied without a namespace (its URL then lacks the namespace segment),
// which fluxcd/pkg/ssa reports as "Kind/name namespace not specified: the
// server could not find the requested resource"; for an object without a
// namespace the two cannot be told apart, so it is not reported.
func parseNotFound(obj ObjectRef, cause string) (MissingKind, bool) {
	if obj.Namespace == "" {
		return MissingKind{}, false
	}
	m := notFoundRE.FindStringSubmatch(cause)
	if m == nil {
		return MissingKind{}, false
	}
	mk := MissingKind{Object: obj, Kind: obj.Kind}
	if m[2] != "" {
		gr := schema.ParseGroupResource(m[2])
		mk.Resource, mk.Group, mk.GroupKnown = gr.Resource, gr.Group, true
	}
	return mk, true
}

// parseObjectRef splits Kind/name or Kind/namespace/name.
func parseObjectRef(s string) ObjectRef {
	parts := strings.Split(s, "/")
	switch len(parts) {
	case 2:
		return ObjectRef{Kind: parts[0], Name: parts[1]}
	case 3:
		return ObjectRef{Kind: parts[0], Namespace: parts[1], Name: parts[2]}
	}
	return ObjectRef{}
}

// splitGroupVersion splits "group/version"; a value without a slash is a
// version of the core group ("v1").
func splitGroupVersion(s string) (group, version string) {
	if g, v, ok := strings.Cut(s, "/"); ok {
		return g, v
	}
	return "", s
}

// dedupe removes duplicates and sorts deterministically.
func dedupe(in []MissingKind) []MissingKind {
	if len(in) == 0 {
		return nil
	}
	seen := make(map[MissingKind]bool, len(in))
	out := make([]MissingKind, 0, len(in))
	for _, m := range in {
		if !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	sort.Slice(out, func(i, j int) bool { return lessMissing(out[i], out[j]) })
	return out
}

func lessMissing(a, b MissingKind) bool {
	ka := []string{a.Group, a.Kind, a.Version, a.Resource, a.Object.Namespace, a.Object.Name, a.Object.Kind}
	kb := []string{b.Group, b.Kind, b.Version, b.Resource, b.Object.Namespace, b.Object.Name, b.Object.Kind}
	for i := range ka {
		if ka[i] != kb[i] {
			return ka[i] < kb[i]
		}
	}
	return !a.GroupKnown && b.GroupKnown
}

package catalog

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"
)

//go:embed catalog.yaml
var builtin []byte

// GroupKind names a kind by API group and kind; the core group is "".
type GroupKind struct {
	Group string `yaml:"group" json:"group"`
	Kind  string `yaml:"kind" json:"kind"`
}

// String renders the kind as Kind.group, as kubectl names resources.
func (gk GroupKind) String() string {
	if gk.Group == "" {
		return gk.Kind
	}
	return gk.Kind + "." + gk.Group
}

// Where a release's CRDs come from (Install.From).
const (
	// FromCRDs is the chart's crds/ directory: Helm installs it before the
	// templates, unless the HelmRelease says install.crds: Skip.
	FromCRDs = "crds"
	// FromTemplates is CRDs rendered with the release's templates.
	FromTemplates = "templates"
	// FromHook is CRDs a Helm hook Job applies during the install.
	FromHook = "hook"
	// FromOperator is CRDs the chart's operator registers when it starts.
	FromOperator = "operator"
)

// Kinds is a set of kinds: whole API groups and single kinds.
type Kinds struct {
	// Groups are API groups whose every kind is in the set.
	Groups []string `yaml:"groups"`
	// Kinds are single kinds.
	Kinds []GroupKind `yaml:"kinds"`
}

// Has reports whether gk is in the set.
func (k Kinds) Has(gk GroupKind) bool {
	return slices.Contains(k.Groups, gk.Group) || slices.Contains(k.Kinds, gk)
}

// Install is a set of CRDs that exists once a release is installed, or once
// a manifest of the entry is applied.
type Install struct {
	Kinds `yaml:",inline"`
	// From says where in the chart the CRDs are (FromCRDs, FromTemplates,
	// FromHook, FromOperator); empty for manifests and platforms.
	From string `yaml:"from"`
	// EnabledBy are dotted chart values that switch the CRDs on: installed
	// when one is true. Empty: always installed.
	EnabledBy []string `yaml:"enabledBy"`
	// EnabledByDefault applies when the release's values set none of
	// EnabledBy.
	EnabledByDefault bool `yaml:"enabledByDefault"`
}

// Runtime is a set of CRDs an operator creates only after it has
// reconciled an object of the trigger kind.
type Runtime struct {
	Kinds `yaml:",inline"`
	// Trigger is the kind whose objects make the operator create the CRDs.
	Trigger GroupKind `yaml:"trigger"`
	// OperatorTimeout is how long a walk waits, at most, for the operator
	// to create the CRDs while it shows progress; zero leaves the walk's
	// default. The entry's comment cites where the figure comes from.
	OperatorTimeout Duration `yaml:"operatorTimeout"`
}

// Timeout is OperatorTimeout as a time.Duration.
func (r Runtime) Timeout() time.Duration { return time.Duration(r.OperatorTimeout) }

// Duration is a Go duration in the catalog ("5m").
type Duration time.Duration

// UnmarshalYAML reads a Go duration string, which must be positive.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if err != nil || v <= 0 {
		return fmt.Errorf("line %d: %q is not a positive duration", n.Line, n.Value)
	}
	*d = Duration(v)
	return nil
}

// Operator names the Deployment of an entry's operator, as the entry's
// manifests install it: its rollout counts as the operator's progress
// while a walk waits for it to create runtime CRDs.
type Operator struct {
	Namespace  string `yaml:"namespace"`
	Deployment string `yaml:"deployment"`
}

// Entry is one chart, operator, manifest set or platform.
type Entry struct {
	// Name names the entry in messages.
	Name string `yaml:"name"`
	// Source is the URL of the chart or operator source the entry was read
	// from.
	Source string `yaml:"source"`
	// Charts are the Helm chart names that identify the entry.
	Charts []string `yaml:"charts"`
	// Manifests are URL patterns ("*" matches any run of characters) of
	// manifests that apply the entry's Install CRDs.
	Manifests []string `yaml:"manifests"`
	// Packages are the Crossplane provider package names (PackageName) that
	// identify the entry: its Runtime sets, triggered by a
	// pkg.crossplane.io Provider, say which groups the package installs
	// where the naming convention does not (PackageGroups).
	Packages []string `yaml:"packages"`
	// Platform names the distribution that serves the Install kinds before
	// Flux starts (Talos); empty for charts and manifests.
	Platform string `yaml:"platform"`
	// BeforeFlux says why a chart that a repository keeps in Flux must
	// nevertheless have been installed before Flux started (a CNI): its
	// Install kinds exist from the start. Empty for most entries.
	BeforeFlux string `yaml:"beforeFlux"`
	// Install are the CRDs that come with the release or manifest.
	Install []Install `yaml:"install"`
	// Runtime are the CRDs an operator creates after reconciling a trigger.
	Runtime []Runtime `yaml:"runtime"`
	// Operator is the Deployment of the operator that creates the Runtime
	// CRDs, where the entry's manifests install it; nil when unknown.
	Operator *Operator `yaml:"operator"`
	// ClusterScoped are the entry's kinds whose CRD has scope: Cluster.
	ClusterScoped []GroupKind `yaml:"clusterScoped"`
}

// Catalog is a parsed catalog.
type Catalog struct {
	Entries []Entry `yaml:"entries"`
	charts  map[string]int
	scoped  map[GroupKind]bool
}

// Default returns the built-in catalog (catalog.yaml, embedded), parsed on
// the first call and shared by every later one. Its error is Parse's on the
// embedded data, which TestBuiltinCatalog rules out for every commit; a
// caller still gets it as an error, since a package never panics.
func Default() (*Catalog, error) { return parseBuiltin() }

// parseBuiltin parses the embedded catalog once, for Default.
var parseBuiltin = sync.OnceValues(func() (*Catalog, error) {
	c, err := Parse(builtin)
	if err != nil {
		return nil, fmt.Errorf("built-in catalog: %w", err)
	}
	return c, nil
})

// Parse decodes and validates a catalog. Unknown fields, an entry without a
// name, a source URL or an identity (charts, manifests or platform), an
// install or runtime without kinds, and a chart named by two entries are
// errors.
func Parse(data []byte) (*Catalog, error) {
	var c Catalog
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	c.charts, c.scoped = map[string]int{}, map[GroupKind]bool{}
	for i, e := range c.Entries {
		for _, gk := range e.ClusterScoped {
			c.scoped[gk] = true
		}
		if err := e.validate(); err != nil {
			return nil, fmt.Errorf("catalog entry %d (%s): %w", i, e.Name, err)
		}
		for _, ch := range e.Charts {
			if j, dup := c.charts[ch]; dup {
				return nil, fmt.Errorf("catalog: chart %q is named by %s and %s", ch, c.Entries[j].Name, e.Name)
			}
			c.charts[ch] = i
		}
	}
	return &c, nil
}

func (e Entry) validate() error {
	switch {
	case e.Name == "":
		return errors.New("no name")
	case !strings.HasPrefix(e.Source, "https://"):
		return errors.New("source is not an https URL")
	case len(e.Charts) == 0 && len(e.Manifests) == 0 && len(e.Packages) == 0 && e.Platform == "":
		return errors.New("no charts, manifests, packages or platform identify it")
	case len(e.Packages) > 0 && !slices.ContainsFunc(e.Runtime, func(r Runtime) bool { return r.Trigger == CrossplaneProvider }):
		return errors.New("packages without a runtime set triggered by a Provider.pkg.crossplane.io")
	case len(e.Install) == 0 && len(e.Runtime) == 0:
		return errors.New("provides no kinds")
	}
	for _, in := range e.Install {
		if len(in.Groups) == 0 && len(in.Kinds.Kinds) == 0 {
			return errors.New("an install without groups or kinds")
		}
		if !slices.Contains([]string{"", FromCRDs, FromTemplates, FromHook, FromOperator}, in.From) {
			return fmt.Errorf("install from %q", in.From)
		}
	}
	for _, r := range e.Runtime {
		if r.Trigger.Kind == "" || (len(r.Groups) == 0 && len(r.Kinds.Kinds) == 0) {
			return errors.New("a runtime entry without a trigger or kinds")
		}
	}
	if op := e.Operator; op != nil && (op.Namespace == "" || op.Deployment == "" || len(e.Runtime) == 0) {
		return errors.New("an operator without a namespace, a deployment or runtime CRDs")
	}
	return nil
}

// Chart returns the entry a Helm chart reference names, or nil. ref may be
// a bare chart name, repo/name, or an OCI URL; its last path segment, less
// any tag or digest, is the chart name.
func (c *Catalog) Chart(ref string) *Entry {
	if i, ok := c.charts[ChartName(ref)]; ok {
		return &c.Entries[i]
	}
	return nil
}

// ChartName is the chart name of a chart reference: the last path segment
// of "oci://ghcr.io/org/charts/name:1.0", "repo/name" or "name".
func ChartName(ref string) string {
	ref = strings.TrimSuffix(strings.TrimSpace(ref), "/")
	if i := strings.LastIndex(ref, "/"); i >= 0 {
		ref = ref[i+1:]
	}
	if i := strings.IndexAny(ref, ":@"); i >= 0 {
		ref = ref[:i]
	}
	return strings.ToLower(ref)
}

// Manifest returns the entry one of whose manifest patterns matches the
// URL or remote kustomize resource u, or nil.
func (c *Catalog) Manifest(u string) *Entry {
	norm := NormalizeURL(u)
	for i, e := range c.Entries {
		for _, p := range e.Manifests {
			if match(p, norm) {
				return &c.Entries[i]
			}
		}
	}
	return nil
}

// Platforms returns the entries served by a platform before Flux starts.
func (c *Catalog) Platforms() []*Entry {
	var out []*Entry
	for i := range c.Entries {
		if c.Entries[i].Platform != "" {
			out = append(out, &c.Entries[i])
		}
	}
	return out
}

// ClusterScoped reports whether an entry says gk is cluster-scoped.
func (c *Catalog) ClusterScoped(gk GroupKind) bool { return c.scoped[gk] }

// Providers returns the entries that install gk or create it at runtime.
func (c *Catalog) Providers(gk GroupKind) []*Entry {
	var out []*Entry
	for i, e := range c.Entries {
		if e.Installs(gk) != nil || e.Creates(gk) != nil {
			out = append(out, &c.Entries[i])
		}
	}
	return out
}

// Installs returns the install of e that provides gk, or nil.
func (e *Entry) Installs(gk GroupKind) *Install {
	for i := range e.Install {
		if e.Install[i].Has(gk) {
			return &e.Install[i]
		}
	}
	return nil
}

// Creates returns the runtime set of e that provides gk, or nil.
func (e *Entry) Creates(gk GroupKind) *Runtime {
	for i := range e.Runtime {
		if e.Runtime[i].Has(gk) && e.Runtime[i].Trigger != gk {
			return &e.Runtime[i]
		}
	}
	return nil
}

// Enabled reports whether a release with these values installs the CRDs:
// true when EnabledBy is empty or one of its values is true, else
// EnabledByDefault when none is set. known is false when values is nil and
// the answer rests on the default.
func (in Install) Enabled(values map[string]any) (enabled, known bool) {
	if len(in.EnabledBy) == 0 {
		return true, true
	}
	set := false
	for _, path := range in.EnabledBy {
		v, ok := lookup(values, path)
		if !ok {
			continue
		}
		set = true
		if b, isBool := v.(bool); isBool && b {
			return true, true
		}
		if s, isString := v.(string); isString && strings.EqualFold(s, "true") {
			return true, true
		}
	}
	if set {
		return false, true
	}
	return in.EnabledByDefault, values != nil
}

// lookup finds a dotted path in nested maps.
func lookup(values map[string]any, path string) (any, bool) {
	var cur any = values
	for _, key := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[key]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// NormalizeURL reduces a manifest URL or remote kustomize resource to the
// form manifest patterns match: no scheme, user, query or fragment, no
// "//" path separator, no trailing "/" or ".git".
func NormalizeURL(u string) string {
	u = strings.TrimSpace(u)
	u = strings.TrimPrefix(u, "git::")
	if parsed, err := url.Parse(u); err == nil && parsed.Host != "" {
		u = parsed.Host + parsed.Path
	} else {
		u, _, _ = strings.Cut(u, "?")
		u, _, _ = strings.Cut(u, "#")
	}
	if rest, ok := strings.CutPrefix(u, "git@"); ok { // git@github.com:org/repo
		u = strings.Replace(rest, ":", "/", 1)
	}
	u = strings.Replace(u, ".git/", "/", 1) // github.com/org/repo.git//path
	for strings.Contains(u, "//") {
		u = strings.ReplaceAll(u, "//", "/")
	}
	u = strings.TrimSuffix(u, "/")
	return strings.TrimSuffix(u, ".git")
}

// match reports whether s matches pattern, where "*" matches any run of
// characters, "/" included.
func match(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	last := len(parts) - 1
	for i := 1; i < last; i++ {
		j := strings.Index(s, parts[i])
		if j < 0 {
			return false
		}
		s = s[j+len(parts[i]):]
	}
	if last == 0 {
		return s == ""
	}
	return strings.HasSuffix(s, parts[last])
}

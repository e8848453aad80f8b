package printer

import (
	"bytes"
	"encoding/json"
	"errors"
	"os/exec"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

func TestPrintTiersUnknownFormat(t *testing.T) {
	var out bytes.Buffer
	err := PrintTiers(&out, "xml", TiersReport{}, Options{})
	want := `unknown output format "xml" (want one of: text, json, yaml, dot, mermaid, shell)`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
	if out.Len() != 0 {
		t.Errorf("wrote %q on error", out.String())
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestPrintTiersWriteError(t *testing.T) {
	err := PrintTiers(failingWriter{}, FormatJSON, offlineReport(t), Options{})
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("error = %v, want the write error wrapped", err)
	}
}

func TestNewTiersReport(t *testing.T) {
	off, live := offlineReport(t), liveReport(t)
	if off.Live || !live.Live {
		t.Errorf("Live = %v offline and %v live, want false and true", off.Live, live.Live)
	}
	node := func(r TiersReport, kind, ns, name string) TierNode {
		for _, tier := range r.Tiers {
			for _, n := range tier.Nodes {
				if n.Ref == (Ref{Kind: kind, Namespace: ns, Name: name}) {
					return n
				}
			}
		}
		t.Fatalf("no node %s/%s/%s", kind, ns, name)
		return TierNode{}
	}
	if n := node(live, "HelmRelease", "kube-system", "cilium"); !n.External || n.Ready != nil {
		t.Errorf("cilium without an object: External = %v, Ready = %v; want true, nil", n.External, n.Ready)
	}
	if n := node(off, "HelmRelease", "kube-system", "cilium"); n.External || n.AppliedBy == nil || n.AppliedBy.Name != "platform" {
		t.Errorf("cilium with an object: External = %v, AppliedBy = %v", n.External, n.AppliedBy)
	}
	vms := node(live, "Kustomization", "flux-system", "apps-vms")
	var missing []string
	for _, d := range vms.DependsOn {
		if d.Missing {
			missing = append(missing, d.Name)
		}
	}
	if !reflect.DeepEqual(missing, []string{"platform-config-cdi"}) || len(vms.DependsOn) != 2 {
		t.Errorf("apps-vms dependsOn = %+v, want two with platform-config-cdi missing", vms.DependsOn)
	}
	if vms.Ready == nil || vms.Ready.Reason != "DependencyNotReady" {
		t.Errorf("apps-vms Ready = %+v", vms.Ready)
	}
	if tenant := node(off, "Kustomization", "team-a", "apps"); len(tenant.DependsOn) != 1 || tenant.DependsOn[0].ReadyExpr == "" {
		t.Errorf("team-a/apps dependsOn = %+v, want one entry with its readyExpr", tenant.DependsOn)
	}
	if len(live.Missing) != 1 || live.Missing[0].Missing.Name != "platform-config-cdi" {
		t.Errorf("Missing = %+v", live.Missing)
	}
}

func TestNewTiersReportMergesRepeatedDependencies(t *testing.T) {
	a := tiers.Node{ID: ksID("ns", "a")}
	b := tiers.Node{ID: ksID("ns", "b"), DependsOn: []tiers.Dependency{{ID: a.ID}, {ID: a.ID, ReadyExpr: "true"}}}
	g, err := tiers.Build([]tiers.Node{a, b}, tiers.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := NewTiersReport("test", g, []flux.Object{{Node: a}, {Node: b}}, nil)
	deps := r.Tiers[1].Nodes[0].DependsOn
	if len(deps) != 1 || deps[0].ReadyExpr != "true" {
		t.Errorf("dependsOn = %+v, want one entry keeping the readyExpr", deps)
	}
}

// TestJSONAndYAMLAgree decodes both data formats and compares them, so the
// two schemas cannot drift apart.
func TestJSONAndYAMLAgree(t *testing.T) {
	for name, r := range map[string]TiersReport{"offline": offlineReport(t), "live": liveReport(t), "empty": {}} {
		t.Run(name, func(t *testing.T) {
			var js, ys bytes.Buffer
			if err := PrintTiers(&js, FormatJSON, r, Options{}); err != nil {
				t.Fatal(err)
			}
			if err := PrintTiers(&ys, FormatYAML, r, Options{}); err != nil {
				t.Fatal(err)
			}
			var fromJSON, fromYAML any
			if err := json.Unmarshal(js.Bytes(), &fromJSON); err != nil {
				t.Fatal(err)
			}
			if err := yaml.Unmarshal(ys.Bytes(), &fromYAML); err != nil {
				t.Fatal(err)
			}
			// Route the YAML through JSON so numbers and maps have one type.
			b, err := json.Marshal(fromYAML)
			if err != nil {
				t.Fatal(err)
			}
			var yamlAsJSON any
			if err := json.Unmarshal(b, &yamlAsJSON); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(fromJSON, yamlAsJSON) {
				t.Errorf("json and yaml differ:\n%s\n%s", js.String(), ys.String())
			}
			doc := fromJSON.(map[string]any)
			if doc["schemaVersion"] != float64(TiersSchemaVersion) {
				t.Errorf("schemaVersion = %v", doc["schemaVersion"])
			}
			for _, key := range []string{"tiers", "missing", "warnings"} {
				if _, ok := doc[key].([]any); !ok {
					t.Errorf("%s = %#v, want a list", key, doc[key])
				}
			}
		})
	}
}

func TestShellOutputRunsInBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatalf("bash is needed to check the shell output: %v", err)
	}
	r := liveReport(t)
	var out bytes.Buffer
	if err := PrintTiers(&out, FormatShell, r, Options{}); err != nil {
		t.Fatal(err)
	}
	script := out.String() + `printf '%s\n' "${TIER_ORDER[@]}"`
	got, err := exec.Command(bash, "-euc", script).Output()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, script)
	}
	var want []string
	for _, tier := range r.Tiers {
		for _, n := range tier.Nodes {
			want = append(want, n.Kind+"/"+n.Namespace+"/"+n.Name)
		}
	}
	if lines := strings.Fields(string(got)); !reflect.DeepEqual(lines, want) {
		t.Errorf("TIER_ORDER = %q, want %q", lines, want)
	}
}

// TestShellNames: every entry names its namespace, so that a script can
// address the object, and its kind when the report mixes kinds; a
// script splits each entry the way the array's comment says.
func TestShellNames(t *testing.T) {
	ks := func(ns, name string) Ref { return Ref{Kind: "Kustomization", Namespace: ns, Name: name} }
	hr := func(ns, name string) Ref { return Ref{Kind: "HelmRelease", Namespace: ns, Name: name} }
	tests := []struct {
		name  string
		nodes []Ref
		want  []string
	}{
		{"unique names keep their namespace", []Ref{ks("flux-system", "a"), ks("apps", "b")}, []string{"flux-system/a", "apps/b"}},
		{"one name in two namespaces", []Ref{ks("flux-system", "apps"), ks("team-a", "apps")}, []string{"flux-system/apps", "team-a/apps"}},
		{"kinds mix: every entry has its kind", []Ref{ks("flux-system", "platform"), hr("kube-system", "cilium")}, []string{"Kustomization/flux-system/platform", "HelmRelease/kube-system/cilium"}},
		{"HelmReleases alone", []Ref{hr("kube-system", "cilium")}, []string{"kube-system/cilium"}},
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatalf("bash is needed to check the shell output: %v", err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tier := Tier{}
			for _, ref := range tt.nodes {
				tier.Nodes = append(tier.Nodes, TierNode{Ref: ref})
			}
			var out bytes.Buffer
			if err := PrintTiers(&out, FormatShell, TiersReport{Tiers: []Tier{tier}}, Options{}); err != nil {
				t.Fatal(err)
			}
			// Split as the comment says: kind, namespace and name come back.
			split := `for entry in "${TIER_ORDER[@]}"; do
  case "$entry" in
  */*/*) IFS=/ read -r kind namespace name <<<"$entry" ;;
  *) kind=-; namespace=${entry%%/*} name=${entry#*/} ;;
  esac
  echo "$kind $namespace $name"
done`
			got, err := exec.Command(bash, "-euc", out.String()+split).Output()
			if err != nil {
				t.Fatalf("bash: %v\n%s", err, out.String())
			}
			var want []string
			for i, ref := range tt.nodes {
				kind := "-"
				if strings.Count(tt.want[i], "/") == 2 {
					kind = ref.Kind
				}
				want = append(want, kind+" "+ref.Namespace+" "+ref.Name)
			}
			if lines := strings.Split(strings.TrimSpace(string(got)), "\n"); !reflect.DeepEqual(lines, want) {
				t.Errorf("entries split into %q, want %q", lines, want)
			}
			if !strings.Contains(out.String(), "  "+strings.Join(tt.want, "\n  ")+"\n") {
				t.Errorf("TIER_ORDER lacks the entries %q:\n%s", tt.want, out.String())
			}
		})
	}
}

func TestShellQuote(t *testing.T) {
	tests := map[string]string{
		"platform":       "platform",
		"team-a/apps":    "team-a/apps",
		"it's odd":       `'it'\''s odd'`,
		"$(rm -rf /)":    `'$(rm -rf /)'`,
		"HelmRelease/ab": "HelmRelease/ab",
	}
	for in, want := range tests {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMermaidIDs(t *testing.T) {
	refs := []Ref{
		{Kind: "Kustomization", Namespace: "flux-system", Name: "a.b"},
		{Kind: "Kustomization", Namespace: "flux-system", Name: "a-b"},
		{Kind: "Kustomization", Namespace: "flux_system", Name: "a_b"},
		{Kind: "HelmRelease", Namespace: "end", Name: "end"},
		{Kind: "OCIRepository", Namespace: "x", Name: "o"},
	}
	tier := Tier{}
	for _, ref := range refs {
		tier.Nodes = append(tier.Nodes, TierNode{Ref: ref})
	}
	ids := mermaidIDs(TiersReport{Tiers: []Tier{tier}})
	valid := regexp.MustCompile(`^[a-z][A-Za-z0-9_]*$`)
	seen := map[string]bool{}
	for _, ref := range refs {
		id := ids[ref]
		if !valid.MatchString(id) || id == "end" {
			t.Errorf("id %q of %v is not a safe mermaid id", id, ref)
		}
		if seen[id] {
			t.Errorf("id %q is used twice", id)
		}
		seen[id] = true
	}
	if got := ids[refs[1]]; got != "ks_flux_system__a_b_2" {
		t.Errorf("second a_b id = %q, want ks_flux_system__a_b_2", got)
	}
}

func TestShortRevision(t *testing.T) {
	tests := map[string]string{
		"main@sha1:4f2a9c0e1b7d3a5f6e8c9b0a1d2e3f4a5b6c7d8e": "main@sha1:4f2a9c0e1b7d",
		"sha256:0123456789abcdef0123456789abcdef":            "sha256:0123456789ab",
		"v1.2.3":                  "v1.2.3",
		"main@sha1:abc":           "main@sha1:abc",
		"oci:not-a-digest-at-all": "oci:not-a-digest-at-all",
		"":                        "",
	}
	for in, want := range tests {
		if got := shortRevision(in); got != want {
			t.Errorf("shortRevision(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEmptyReport(t *testing.T) {
	g, err := tiers.Build(nil, tiers.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := NewTiersReport("cluster kind-dev", g, nil, nil)
	for _, format := range TiersFormats() {
		var out bytes.Buffer
		if err := PrintTiers(&out, format, r, Options{}); err != nil {
			t.Errorf("%s: %v", format, err)
		}
		// A table of no rows is nothing at all, as kubectl prints it; its
		// footer (stderr) says so.
		if empty := out.Len() == 0; empty != (format == FormatText) {
			t.Errorf("%s: empty output = %v", format, empty)
		}
	}
	var footer bytes.Buffer
	if err := PrintTiersFooter(&footer, r, Options{}); err != nil {
		t.Fatal(err)
	}
	if want := "0 nodes in 0 tiers from cluster kind-dev\n"; footer.String() != want {
		t.Errorf("footer = %q, want %q", footer.String(), want)
	}
}

// TestTableRowsAreComplete: every row of the text table has as many
// fields as its header, split on blanks as awk splits them, its tier
// included, so that a column is the same field in every row; and
// --no-headers leaves the rows alone.
func TestTableRowsAreComplete(t *testing.T) {
	for name, report := range map[string]func(*testing.T) TiersReport{"offline": offlineReport, "live": liveReport} {
		t.Run(name, func(t *testing.T) {
			r := report(t)
			var out bytes.Buffer
			if err := PrintTiers(&out, FormatText, r, Options{}); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			header := strings.Fields(strings.Replace(lines[0], "DEPENDS ON", "DEPENDS_ON", 1))
			if len(lines)-1 != r.nodeCount() {
				t.Fatalf("%d rows for %d nodes:\n%s", len(lines)-1, r.nodeCount(), out.String())
			}
			for _, line := range lines[1:] {
				fields := strings.Fields(line)
				if len(fields) != len(header) {
					t.Errorf("row %q has %d fields, want %d (%v)", line, len(fields), len(header), header)
					continue
				}
				if _, err := strconv.Atoi(fields[0]); err != nil {
					t.Errorf("row %q: first field %q is not its tier", line, fields[0])
				}
			}
			var bare bytes.Buffer
			if err := PrintTiers(&bare, FormatText, r, Options{NoHeaders: true}); err != nil {
				t.Fatal(err)
			}
			if want := strings.Join(lines[1:], "\n") + "\n"; bare.String() != want {
				t.Errorf("--no-headers:\n%s\nwant the rows alone:\n%s", bare.String(), want)
			}
		})
	}
}

// The PATH column of an offline table shows what Flux builds: a
// Kustomization without spec.path builds the root of its source ("./"), not
// the Kustomization that applies it.
func TestOfflinePathText(t *testing.T) {
	via := &Ref{Kind: flux.KindKustomization, Namespace: "flux-system", Name: "crds"}
	tests := []struct {
		name string
		node TierNode
		want string
	}{
		{"kustomization with path", TierNode{Ref: Ref{Kind: flux.KindKustomization}, Path: "./apps", AppliedBy: via}, "./apps"},
		{"kustomization without path", TierNode{Ref: Ref{Kind: flux.KindKustomization}, AppliedBy: via}, "./"},
		{"root kustomization without path", TierNode{Ref: Ref{Kind: flux.KindKustomization}}, "./"},
		{"helmrelease", TierNode{Ref: Ref{Kind: flux.KindHelmRelease}, AppliedBy: via}, "(flux-system/crds)"},
		{"helmrelease of the path", TierNode{Ref: Ref{Kind: flux.KindHelmRelease}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cells := nodeCells(TiersReport{}, tt.node, false, false, Styles{})
			if got := cells[5].text; got != tt.want {
				t.Errorf("PATH = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestTargetsInEveryFormat: every format tiers prints shows the cluster a
// node applies to when some node has a spec.kubeConfig, and none names a
// target when no node has one, so that a one-cluster graph reads as before.
func TestTargetsInEveryFormat(t *testing.T) {
	for _, format := range TiersFormats() {
		t.Run(format, func(t *testing.T) {
			var hub, one bytes.Buffer
			if err := PrintTiers(&hub, format, hubSpokeReport(t), Options{}); err != nil {
				t.Fatal(err)
			}
			if err := PrintTiers(&one, format, offlineReport(t), Options{}); err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"staging/cluster-kubeconfig", "ConfigMap/production/aks-production"} {
				if !strings.Contains(hub.String(), want) {
					t.Errorf("%s output names no target %s:\n%s", format, want, hub.String())
				}
			}
			for _, word := range []string{"TARGET", "target", "→", localTarget} {
				if strings.Contains(one.String(), word) {
					t.Errorf("%s output of a one-cluster graph holds %q:\n%s", format, word, one.String())
				}
			}
		})
	}
}

// TestShellTargetsRunInBash: TIER_TARGET is a bash associative array from
// each TIER_ORDER entry that applies to another cluster to its target; an
// entry applying to its own cluster is not in it.
func TestShellTargetsRunInBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatalf("bash is needed to check the shell output: %v", err)
	}
	r := hubSpokeReport(t)
	var out bytes.Buffer
	if err := PrintTiers(&out, FormatShell, r, Options{}); err != nil {
		t.Fatal(err)
	}
	script := out.String() + `for e in "${TIER_ORDER[@]}"; do printf '%s=%s\n' "$e" "${TIER_TARGET[$e]:-}"; done`
	got, err := exec.Command(bash, "-euc", script).Output()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, script)
	}
	var want []string
	for _, tier := range r.Tiers {
		for _, n := range tier.Nodes {
			want = append(want, n.Kind+"/"+n.Namespace+"/"+n.Name+"="+n.Target)
		}
	}
	if lines := strings.Fields(string(got)); !reflect.DeepEqual(lines, want) {
		t.Errorf("targets = %q, want %q", lines, want)
	}
	if !slices.Contains(want, "Kustomization/flux-system/flux-system=") || !slices.Contains(want, "Kustomization/staging/tenants=staging/cluster-kubeconfig") {
		t.Errorf("the fixture lost its local node or its spoke: %q", want)
	}
}

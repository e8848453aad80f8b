package main

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kubestandup/standup/internal/sarifcheck"
	"github.com/kubestandup/standup/pkg/audit"
)

// auditGolden compares got with testdata/audit/golden/name.
func auditGolden(t *testing.T, name, got string) {
	t.Helper()
	golden(t, filepath.Join("..", "audit", "golden", name), got)
}

// auditDoc is the part of `audit -o json` the tests read.
type auditDoc struct {
	SchemaVersion int    `json:"schemaVersion"`
	Path          string `json:"path"`
	Summary       struct {
		Kustomizations, Objects, Errors, Warnings, Notices, Places int
	} `json:"summary"`
	Findings []audit.Finding `json:"findings"`
	Kinds    []audit.KindUse `json:"kinds"`
}

// places lists every place of every finding, in report order.
func (d auditDoc) places() []audit.Hazard {
	var out []audit.Hazard
	for _, f := range d.Findings {
		out = append(out, f.Places...)
	}
	return out
}

// auditJSON runs `standup audit -o json` and decodes its output.
func auditJSON(t *testing.T, args ...string) (auditDoc, int) {
	t.Helper()
	out, errOut, code := runOffline(t, append([]string{"audit", "-o", "json"}, args...)...)
	var doc auditDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("audit -o json: %v (exit %d, stderr %s)\n%s", err, code, errOut, out)
	}
	return doc, code
}

// hazardLines renders hazards as "CODE severity kustomization object".
func hazardLines(hs []audit.Hazard) []string {
	var out []string
	for _, h := range hs {
		out = append(out, strings.Join([]string{string(h.Code), string(h.Severity), h.Kustomization.Name, h.Object.String()}, " "))
	}
	return out
}

var auditCases = []struct {
	name string
	path string
	code int
	want []string
}{
	{name: "homelab", path: "../../examples/homelab/clusters/prod"},
	{name: "homelab-deadlock", path: "../../examples/homelab-deadlock/clusters/prod", code: ExitFailure, want: []string{
		"SECOND_ORDER_SAME_PASS error platform-config StorageProfile/longhorn",
		"SECOND_ORDER_SAME_PASS error platform-config StorageProfile/longhorn-vm",
	}},
	// Nothing orders apps-vms after the CDI CR: its first pass fails, and a
	// retry converges.
	{name: "missing-edge", path: "testdata/audit/missing-edge/clusters/prod", want: []string{
		"MISSING_EDGE warning apps-vms DataVolume/vms/unifi-rootdisk",
	}},
	{name: "unguarded", path: "testdata/audit/unguarded/clusters/prod", want: []string{
		"UNGUARDED_PROVIDER warning apps-vms DataVolume/vms/unifi-rootdisk",
		"UNGUARDED_PROVIDER warning platform-config-cdi StorageProfile/longhorn",
		"UNGUARDED_PROVIDER warning platform-config-cdi StorageProfile/longhorn-vm",
	}},
	{name: "literal-token", path: "testdata/audit/literal-token/clusters/prod", want: []string{
		"LITERAL_SUBSTITUTION_TOKEN warning monitoring ConfigMap/monitoring/uptime-targets",
	}},
	// flux2-hub-spoke-example with staging's infra-configs stripped of its
	// dependsOn: the ClusterIssuer races the chart on the staging spoke,
	// and the place names that cluster (its golden, the summary's clusters).
	{name: "hub-spoke", path: "../../pkg/audit/testdata/hub-spoke-race/hub", want: []string{
		"MISSING_EDGE warning infra-configs ClusterIssuer/letsencrypt",
	}},
}

func TestAuditExamples(t *testing.T) {
	for _, tt := range auditCases {
		t.Run(tt.name, func(t *testing.T) {
			doc, code := auditJSON(t, "--path", tt.path)
			if code != tt.code {
				t.Errorf("exit %d, want %d", code, tt.code)
			}
			if got := hazardLines(doc.places()); !slices.Equal(got, tt.want) {
				t.Errorf("hazards:\n got %q\nwant %q", got, tt.want)
			}
			if doc.SchemaVersion != 2 || doc.Summary.Errors+doc.Summary.Warnings+doc.Summary.Notices != len(doc.Findings) ||
				doc.Summary.Places != len(doc.places()) || doc.Summary.Kustomizations == 0 {
				t.Errorf("summary %+v does not match %d findings", doc.Summary, len(doc.Findings))
			}
		})
	}
}

// TestAuditDeadlockNamesTheCause checks the seed's deadlock the way a reader
// needs it: both StorageProfiles, naming platform-config, the trigger CDI and
// the file each profile comes from.
func TestAuditDeadlockNamesTheCause(t *testing.T) {
	doc, _ := auditJSON(t, "--path", "../../examples/homelab-deadlock/clusters/prod")
	if len(doc.Findings) != 1 || len(doc.places()) != 2 {
		t.Fatalf("got %d findings of %d places, want one of 2", len(doc.Findings), len(doc.places()))
	}
	for _, h := range doc.places() {
		if h.Code != audit.CodeSecondOrderSamePass || h.Kustomization.Name != "platform-config" {
			t.Errorf("got %s in %s, want SECOND_ORDER_SAME_PASS in platform-config", h.Code, h.Kustomization)
		}
		if h.File != "infrastructure/kubevirt/cdi-storageprofiles.yaml" {
			t.Errorf("%s: file %q", h.Object, h.File)
		}
		if h.Trigger == nil || *h.Trigger != (audit.GroupKind{Group: "cdi.kubevirt.io", Kind: "CDI"}) {
			t.Errorf("%s: trigger %v, want CDI.cdi.kubevirt.io", h.Object, h.Trigger)
		}
		if h.Provider == nil || h.Provider.Name != "platform-config" {
			t.Errorf("%s: provider %v, want platform-config", h.Object, h.Provider)
		}
		for _, s := range []string{"flux-system/platform-config", "once a CDI is reconciled", "CDI/cdi (infrastructure/kubevirt/cdi-cr.yaml)"} {
			if !strings.Contains(h.Message, s) {
				t.Errorf("message %q does not name %q", h.Message, s)
			}
		}
		if !strings.Contains(h.Fix, "dependsOn platform-config") {
			t.Errorf("fix %q", h.Fix)
		}
	}
	// The repair's subtlety: apps-vms's DataVolume is a runtime kind too,
	// and it is clean in both layouts because platform-config is its ancestor.
	for _, k := range doc.Kinds {
		if k.Kustomization.Name == "apps-vms" && k.Kind == "DataVolume" && (k.Origin != audit.OriginRuntime || k.Provider == nil || k.Provider.Name != "platform-config") {
			t.Errorf("apps-vms DataVolume: %+v", k)
		}
	}
}

func TestAuditGolden(t *testing.T) {
	for _, tt := range auditCases {
		for _, format := range []string{"text", "json", "sarif"} {
			t.Run(tt.name+"/"+format, func(t *testing.T) {
				out, errOut, code := runOffline(t, "audit", "--path", tt.path, "-o", format, "--no-color")
				if code != tt.code {
					t.Fatalf("exit %d, want %d: %s", code, tt.code, errOut)
				}
				if format == "sarif" {
					checkSARIF(t, out)
				}
				out = strings.ReplaceAll(out, `"version": "`+buildVersion()+`"`, `"version": "VERSION"`)
				auditGolden(t, tt.name+"."+format, strings.ReplaceAll(out, sourceRootURI(t), "file:///GIT_ROOT/"))
			})
		}
	}
}

// sourceRootURI is the file URI of this checkout's git root, which SARIF
// declares as %SRCROOT%.
func sourceRootURI(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if root, err = filepath.EvalSymlinks(root); err != nil {
		t.Fatal(err)
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(root) + "/"}).String()
}

// checkSARIF fails the test unless out is valid SARIF 2.1.0 whose every
// result code scanning can place in this checkout.
func checkSARIF(t *testing.T, out string) {
	t.Helper()
	if err := sarifcheck.Validate([]byte(out)); err != nil {
		t.Fatalf("not valid SARIF 2.1.0: %v", err)
	}
	u, err := url.Parse(sourceRootURI(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sarifcheck.CodeScanning([]byte(out), filepath.FromSlash(strings.TrimSuffix(u.Path, "/"))); err != nil {
		t.Fatalf("not fit for code scanning: %v", err)
	}
}

// TestAuditSARIF: the seed's deadlock in code scanning's terms: a result
// per StorageProfile, each at the line its document starts in its file,
// named from the git root (examples/homelab-deadlock is a directory of it,
// marked by its standup.yaml).
func TestAuditSARIF(t *testing.T) {
	const repo = "../../examples/homelab-deadlock"
	out, errOut, code := runOffline(t, "audit", "--path", repo+"/clusters/prod", "-o", "sarif")
	if code != ExitFailure || !strings.Contains(errOut, "1 finding is an error") {
		t.Fatalf("exit %d, stderr %q; want 1 and the count", code, errOut)
	}
	checkSARIF(t, out)
	var doc struct {
		Runs []struct {
			Results []struct {
				RuleID    string `json:"ruleId"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI, URIBaseID string } `json:"artifactLocation"`
						Region           struct{ StartLine int }         `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range doc.Runs[0].Results {
		p := r.Locations[0].PhysicalLocation
		got = append(got, fmt.Sprintf("%s %s:%d", r.RuleID, p.ArtifactLocation.URI, p.Region.StartLine))
	}
	want := []string{
		"SECOND_ORDER_SAME_PASS examples/homelab-deadlock/infrastructure/kubevirt/cdi-storageprofiles.yaml:11",
		"SECOND_ORDER_SAME_PASS examples/homelab-deadlock/infrastructure/kubevirt/cdi-storageprofiles.yaml:22",
	}
	if !slices.Equal(got, want) {
		t.Errorf("results at\n %q\nwant\n %q", got, want)
	}
}

// auditRepo writes a one-cluster repository: a root Kustomization at
// clusters/c applying the Kustomizations given as YAML, and files.
func auditRepo(t *testing.T, kustomizations string, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	all := map[string]string{
		"standup.yaml": "apiVersion: standup.kubestandup.io/v1alpha1\nkind: Config\n",
		"clusters/c/root.yaml": "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: flux-system, namespace: flux-system}\n" +
			"spec: {interval: 10m, path: ./clusters/c, sourceRef: {kind: GitRepository, name: flux-system}}\n",
		"clusters/c/list.yaml": kustomizations,
	}
	for k, v := range files {
		all[k] = v
	}
	for name, content := range all {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// auditKS is a Kustomization building ./apps/<name>, with dependsOn entries.
func auditKS(name string, deps ...string) string {
	s := "---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: " + name + ", namespace: flux-system}\n" +
		"spec:\n  interval: 10m\n  path: ./apps/" + name + "\n  sourceRef: {kind: GitRepository, name: flux-system}\n"
	for _, d := range deps {
		s += "  dependsOn: [{name: " + d + "}]\n"
	}
	return s
}

func TestAuditFlagsAndErrors(t *testing.T) {
	widget := map[string]string{"apps/a/widget.yaml": "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: default}\n"}
	unknown := auditRepo(t, auditKS("a"), widget)
	cycle := auditRepo(t, auditKS("a", "b")+auditKS("b", "a"), map[string]string{
		"apps/a/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: default}\n",
		"apps/b/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, namespace: default}\n",
	})
	badConfig := auditRepo(t, auditKS("a"), widget)
	if err := os.WriteFile(filepath.Join(badConfig, "standup.yaml"), []byte("runtimeCRDs:\n  - trigger: {group: a, kind: B}\n    kindz: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := func(dir string) string { return filepath.Join(dir, "clusters", "c") }
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantOut    string
		wantStderr string
	}{
		{name: "unknown kind is a notice", args: []string{"--path", path(unknown)}, wantCode: ExitOK, wantOut: "at Kustomization/flux-system/a  Widget/default/w  apps/a/widget.yaml"},
		{name: "unknown kind is an error with --strict", args: []string{"--path", path(unknown), "--strict"}, wantCode: ExitFailure, wantOut: "✗ 1 error, 0 warnings in 2 Kustomizations"},
		{name: "--allow-unknown-kinds still runs", args: []string{"--path", path(unknown), "--allow-unknown-kinds"}, wantCode: ExitOK, wantOut: "✓ 0 errors, 0 warnings, 1 notice"},
		{name: "cycle", args: []string{"--path", path(cycle)}, wantCode: ExitFailure, wantOut: "circular dependency: flux-system/a -> flux-system/b -> flux-system/a"},
		{name: "bad standup.yaml", args: []string{"--path", path(badConfig)}, wantCode: ExitFailure, wantStderr: `standup.yaml: line 3: unknown field "kindz"`},
		{name: "from cluster needs a path", args: []string{"--from-cluster"}, wantCode: ExitUsage, wantStderr: "audit --from-cluster: --path is required"},
		{name: "from cluster has no sarif", args: []string{"--path", path(unknown), "--from-cluster", "-o", "sarif"}, wantCode: ExitUsage, wantStderr: `audit --from-cluster: unknown output format "sarif" (want one of: yaml, text, json)`},
		{name: "from cluster without a kubeconfig", args: []string{"--path", path(unknown), "--from-cluster", "--kubeconfig", filepath.Join(t.TempDir(), "absent")}, wantCode: ExitFailure, wantStderr: "absent not found: pass an existing file with --kubeconfig or KUBECONFIG"},
		{name: "no path", wantCode: ExitUsage, wantStderr: "--path is required"},
		{name: "unknown format", args: []string{"--path", path(unknown), "-o", "yaml"}, wantCode: ExitUsage, wantStderr: `unknown output format "yaml"`},
		{name: "repo root given", args: []string{"--path", "../../examples/homelab/clusters/prod", "--repo-root", "../../examples/homelab"}, wantCode: ExitOK, wantOut: "✓ 0 errors, 0 warnings in 8 Kustomizations"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runOffline(t, append([]string{"audit", "--no-color"}, tt.args...)...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stdout %s; stderr %s", code, tt.wantCode, out, errOut)
			}
			if !strings.Contains(out, tt.wantOut) {
				t.Errorf("stdout %q does not contain %q", out, tt.wantOut)
			}
			if !strings.Contains(errOut, tt.wantStderr) {
				t.Errorf("stderr %q does not contain %q", errOut, tt.wantStderr)
			}
		})
	}
}

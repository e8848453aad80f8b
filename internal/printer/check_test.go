package printer

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubestandup/standup/pkg/check"
	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/tiers"
)

func TestPrintCheck(t *testing.T) {
	platform := tiers.ID{Kind: "Kustomization", Namespace: "flux-system", Name: "platform-config"}
	tests := []struct {
		name   string
		report check.Report
		want   string
	}{
		{
			name: "every check passed",
			report: check.Report{OK: true, Checks: []check.Result{
				{Name: "flux", Status: check.Pass, Summary: "Flux is installed", Items: []check.Item{}},
				{Name: "controllers", Status: check.Skip, Summary: "controllers: not deployed in-cluster (skipped)", Items: []check.Item{}},
				{Name: "ready", Status: check.Pass, Summary: "ready: 1 of 1", Items: []check.Item{{Object: &platform, OK: true, Message: "Ready at main@sha1:2"}}},
			}},
			want: "✔ Flux is installed\n" +
				"- controllers: not deployed in-cluster (skipped)\n" +
				"✔ ready: 1 of 1\n" +
				"  ✔ Kustomization/flux-system/platform-config: Ready at main@sha1:2\n" +
				"all checks passed\n",
		},
		{
			name: "a failed check: items without an object, and a diagnosis names its object itself",
			report: check.Report{Checks: []check.Result{
				{Name: "bundle", Status: check.Fail, Summary: "bundle: bootstrap/crds is invalid", Items: []check.Item{{Message: "bad.yaml: document 1"}}},
				{Name: "dry-run", Status: check.Fail, Summary: "dry-run: 1 Kustomization stuck", Items: []check.Item{
					{Object: &platform, Message: "Kustomization flux-system/platform-config cannot apply", Diagnosis: &crds.Diagnosis{}},
				}},
			}},
			want: "✗ bundle: bootstrap/crds is invalid\n" +
				"  ✗ bad.yaml: document 1\n" +
				"✗ dry-run: 1 Kustomization stuck\n" +
				"  ✗ Kustomization flux-system/platform-config cannot apply\n",
		},
		{
			name: "a long message wraps at 100 columns, counted from its head, indented under it",
			report: check.Report{Checks: []check.Result{
				{Name: "suspended", Status: check.Fail, Summary: "suspended: 1 Kustomization suspended", Items: []check.Item{
					{Object: &platform, Message: strings.Repeat("word ", 20) + "end"},
				}},
			}},
			want: "✗ suspended: 1 Kustomization suspended\n" +
				"  ✗ Kustomization/flux-system/platform-config: " + strings.TrimSpace(strings.Repeat("word ", 11)) + "\n" +
				"    " + strings.Repeat("word ", 9) + "end\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := PrintCheck(&b, FormatText, tt.report, Options{}); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", b.String(), tt.want)
			}
		})
	}
}

// TestPrintCheckJSON pins the bytes of `check -o json` (docs/check.md):
// two-space indent, a newline at the end, an empty list as [], a check
// without items as null, omitted object and diagnosis, and encoding/json's
// HTML escaping of < > &.
func TestPrintCheckJSON(t *testing.T) {
	platform := tiers.ID{Kind: "Kustomization", Namespace: "flux-system", Name: "platform-config"}
	report := check.Report{SchemaVersion: 1, Checks: []check.Result{
		{Name: "flux", Status: check.Pass, Summary: "Flux is installed", Items: []check.Item{}},
		{Name: "bundle", Status: check.Fail, Summary: "bundle: bootstrap/crds is invalid", Items: []check.Item{{Message: "bad.yaml: document 1"}}},
		{Name: "dry-run", Status: check.Fail, Summary: "dry-run: 1 Kustomization stuck", Items: []check.Item{{
			Object: &platform, Message: "Kustomization flux-system/platform-config cannot apply: <StorageProfile> & co",
			Diagnosis: &crds.Diagnosis{Kustomization: platform, Reason: "ReconciliationFailed", Message: "dry-run failed",
				Missing: []crds.MissingType{{Group: "cdi.kubevirt.io", Kind: "StorageProfile", GroupKnown: true, Versions: []string{"v1beta1"}}}},
		}}},
		{Name: "ready", Status: check.Skip, Summary: "ready: no Kustomization named (--ready NAME)"},
	}}
	var b bytes.Buffer
	if err := PrintCheck(&b, FormatJSON, report, Options{Color: true}); err != nil {
		t.Fatal(err)
	}
	compareGolden(t, filepath.Join("testdata", "check.json.golden"), b.Bytes())
}

func TestWrapText(t *testing.T) {
	tests := []struct {
		in    string
		width int
		want  string
	}{
		{in: "a b c", width: 10, want: "a b c"},
		{in: "aaaa bbbb cccc", width: 9, want: "aaaa bbbb\n  cccc"},
		{in: "averyveryverylongword b", width: 5, want: "averyveryverylongword\n  b"},
		{in: "  spaced\n\nout  ", width: 80, want: "spaced out"},
	}
	for _, tt := range tests {
		if got := wrapText(tt.in, "  ", tt.width); got != tt.want {
			t.Errorf("wrapText(%q, %d) = %q, want %q", tt.in, tt.width, got, tt.want)
		}
	}
}

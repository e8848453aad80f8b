package printer

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/kubestandup/standup/pkg/wait"
)

func TestPrintPlan(t *testing.T) {
	steps := []wait.PlanStep{
		{Node: *walkNode("flux-system", "infra"), Tier: 0, Action: "none", Passive: true},
		{Node: *walkNode("flux-system", "apps"), Tier: 1, Action: "resume+reconcile"},
	}
	var text bytes.Buffer
	if err := PrintPlan(&text, FormatText, steps); err != nil {
		t.Fatal(err)
	}
	want := "0\tKustomization/flux-system/infra\tnone (not touched: outside the selection)\n" +
		"1\tKustomization/flux-system/apps\tresume+reconcile\n"
	if text.String() != want {
		t.Errorf("text plan:\n%s\nwant\n%s", text.String(), want)
	}
	var js bytes.Buffer
	if err := PrintPlan(&js, FormatJSON, steps); err != nil {
		t.Fatal(err)
	}
	compareGolden(t, filepath.Join("testdata", "walk", "plan.json.golden"), js.Bytes())
	if err := PrintPlan(&js, "yaml", steps); err == nil {
		t.Error("PrintPlan accepted yaml")
	}
}

func TestPrintVersion(t *testing.T) {
	v := Version{Version: "v1.2.3", FluxAPIs: []string{"kustomize.toolkit.fluxcd.io/v1", "source.toolkit.fluxcd.io/v1"}, KustomizeController: "v1.7.3 to v1.9.6"}
	text := "standup v1.2.3\nflux API: kustomize.toolkit.fluxcd.io/v1\nflux API: source.toolkit.fluxcd.io/v1\ntested with kustomize-controller: v1.7.3 to v1.9.6\n"
	tests := []struct{ format, want string }{
		{FormatText, text},
		{FormatTable, text},
		{FormatJSON, "{\n  \"version\": \"v1.2.3\",\n  \"fluxAPIs\": [\n    \"kustomize.toolkit.fluxcd.io/v1\",\n    \"source.toolkit.fluxcd.io/v1\"\n  ],\n  \"kustomizeController\": \"v1.7.3 to v1.9.6\"\n}\n"},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		if err := PrintVersion(&out, tt.format, v); err != nil || out.String() != tt.want {
			t.Errorf("PrintVersion(%s) = %q, %v; want %q", tt.format, out.String(), err, tt.want)
		}
	}
}

func TestUseColorNeedsATerminal(t *testing.T) {
	for _, noColor := range []bool{false, true} {
		if UseColor(&bytes.Buffer{}, noColor) {
			t.Errorf("UseColor(buffer, noColor=%v) = true, want false: not a terminal", noColor)
		}
	}
}

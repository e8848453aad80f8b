package coldstart

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kubestandup/standup/internal/printer"
	"github.com/kubestandup/standup/pkg/audit"
)

// TestAuditUnrecognisedBootstrap: issue 35. A manifest URL a bootstrap
// file applies that the audit cannot tell the CRDs of is named, in the
// text report and in -o json, not dropped.
func TestAuditUnrecognisedBootstrap(t *testing.T) {
	r := &audit.Report{Path: "kubernetes/flux/cluster", Kustomizations: 1, Objects: 1, Bootstrap: []audit.BootstrapUse{
		{File: "bootstrap/helmfile.yaml", What: "helmfile release cert-manager/cert-manager", Catalog: "cert-manager", Groups: []string{"cert-manager.io"}},
		{File: "bootstrap/mod.just", What: "manifest https://example.com/v2/operator-install.yaml", Unrecognised: true},
		{File: "talos/talconfig.yaml", What: "manifest https://example.com/v1/other.yaml", Unrecognised: true},
	}}
	var text strings.Builder
	if err := PrintAudit(&text, printer.FormatText, r, AuditOptions{}); err != nil {
		t.Fatal(err)
	}
	want := "Installed before Flux: 1 API group (bootstrap/helmfile.yaml)\n\n" +
		"Not recognised before Flux: 2 manifest URLs, CRDs unknown (declare them in standup.yaml bootstrapCRDs): " +
		"https://example.com/v2/operator-install.yaml (bootstrap/mod.just), https://example.com/v1/other.yaml (talos/talconfig.yaml)\n\n"
	if !strings.Contains(text.String(), want) {
		t.Errorf("text:\n%s\nwant it to hold:\n%s", text.String(), want)
	}
	var js strings.Builder
	if err := PrintAudit(&js, printer.FormatJSON, r, AuditOptions{}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Bootstrap []map[string]any `json:"bootstrap"`
	}
	if err := json.Unmarshal([]byte(js.String()), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Bootstrap) != 3 || doc.Bootstrap[0]["unrecognised"] != nil || doc.Bootstrap[1]["unrecognised"] != true {
		t.Errorf("json bootstrap %v: want unrecognised only on the URLs", doc.Bootstrap)
	}
}

package audit

import (
	"slices"
	"testing"
)

// TestLiteralTokensSkipGrafanaDashboards: issue 35. Without postBuild, a
// Grafana dashboard's ${DS_PROMETHEUS} or ${instance} in a ConfigMap's
// *.json data is Grafana's text, applied as written as it should be: no
// LITERAL_SUBSTITUTION_TOKEN. The rest of the ConfigMap, and JSON that is
// no dashboard, still count (testdata/grafana-dashboards/README.md).
func TestLiteralTokensSkipGrafanaDashboards(t *testing.T) {
	r := auditDir(t, "testdata/grafana-dashboards", "clusters/prod")
	var got []string
	for _, h := range r.Hazards {
		got = append(got, brief(h)+": "+h.Message)
	}
	want := []string{
		"LITERAL_SUBSTITUTION_TOKEN warning monitoring ConfigMap/monitoring/grafana-provisioning: ConfigMap/monitoring/grafana-provisioning holds ${CLUSTER_DOMAIN}, but Kustomization/flux-system/monitoring declares no postBuild: the text is applied literally",
		"LITERAL_SUBSTITUTION_TOKEN warning status ConfigMap/monitoring/status-page: ConfigMap/monitoring/status-page holds ${CLUSTER_DOMAIN}, but Kustomization/flux-system/status declares no postBuild: the text is applied literally",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("hazards:\n got %q\nwant %q", got, want)
	}
}

// TestGrafanaDashboard: which JSON is a dashboard whose tokens are
// Grafana's.
func TestGrafanaDashboard(t *testing.T) {
	tests := []struct {
		name string
		text string
		want bool
	}{
		{"an export with __inputs", `{"__inputs": [{"name": "DS_PROMETHEUS", "type": "datasource", "pluginId": "prometheus"}], "panels": [{"datasource": "${DS_PROMETHEUS}"}]}`, true},
		{"a datasource uid", `{"title": "Logs", "panels": [{"type": "logs", "datasource": {"type": "loki", "uid": "${DS_LOKI}"}}]}`, true},
		{"a datasource by name, nested in a row", `{"rows": [{"panels": [{"datasource": "${datasource}", "targets": [{"expr": "up"}]}]}]}`, true},
		{"template variables only", `{"title": "Pods", "panels": [{"targets": [{"expr": "up{namespace=\"${namespace}\"}"}]}]}`, false},
		{"a fixed datasource", `{"panels": [{"datasource": {"type": "prometheus", "uid": "prometheus"}, "title": "${CLUSTER_NAME}"}]}`, false},
		{"application settings", `{"endpoints": [{"url": "https://grafana.${CLUSTER_DOMAIN}"}]}`, false},
		{"not JSON", `datasource: ${DS_PROMETHEUS}`, false},
		{"no token", `{"__inputs": []}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := grafanaDashboard(tt.text); got != tt.want {
				t.Errorf("grafanaDashboard(%s) = %v, want %v", tt.text, got, tt.want)
			}
		})
	}
}

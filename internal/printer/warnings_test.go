package printer

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// renderWarnings are the warnings of a render of a repository whose
// variables come from a Secret none of its files holds, as
// haraldkoch/kochhaus-home's come from a SOPS-encrypted one.
func renderWarnings() []string {
	var ws []string
	for _, ns := range []string{"argo", "cert-manager", "dbms", "media", "network"} {
		ks := "Kustomization/" + ns + "/app"
		ws = append(ws, ks+": substituteFrom Secret/"+ns+"/cluster-secrets not found in the repository")
		for _, v := range []string{"CLUSTER_DOMAIN", "SECRET_EMAIL"}[:1+len(ns)%2] {
			ws = append(ws, fmt.Sprintf("%s: variable ${%s} has no value offline (it may come from Secret/%s/cluster-secrets); shown as ${%s} here", ks, v, ns, v))
		}
	}
	return append(ws,
		"apps/dragonfly/kustomization.yaml: remote resource https://example.com/crd.yaml is not fetched offline; skipped",
		"apps/vpn/secret.sops.yaml: Secret/vpn/vpnconfig is SOPS-encrypted; skipped (not decrypted offline)",
		"apps/web/secret.sops.yaml: Secret/web/token is SOPS-encrypted; skipped (not decrypted offline)",
	)
}

// TestPrintRenderWarningsGolden: a line for each kind of warning, its count
// and its first places; every warning with verbose.
func TestPrintRenderWarningsGolden(t *testing.T) {
	for _, verbose := range []bool{false, true} {
		name := "render_warnings"
		if verbose {
			name += "-verbose"
		}
		t.Run(name, func(t *testing.T) {
			var b strings.Builder
			if err := PrintRenderWarnings(&b, renderWarnings(), verbose); err != nil {
				t.Fatal(err)
			}
			compareGolden(t, filepath.Join("testdata", name+".golden"), []byte(b.String()))
		})
	}
}

// TestRenderWarningCountsAddUp: the counts of the grouped lines add up to
// the number of warnings, which audit's summary states; a line without a
// count stands for one.
func TestRenderWarningCountsAddUp(t *testing.T) {
	var b strings.Builder
	ws := renderWarnings()
	if err := PrintRenderWarnings(&b, ws, false); err != nil {
		t.Fatal(err)
	}
	count := regexp.MustCompile(`^warning: (\d+) (?:warnings in \d+ )?[A-Za-z]+: `)
	total := 0
	for line := range strings.Lines(b.String()) {
		n := 1
		if m := count.FindStringSubmatch(line); m != nil {
			n, _ = strconv.Atoi(m[1])
		}
		total += n
	}
	if total != len(ws) {
		t.Errorf("the lines count %d warnings, want %d:\n%s", total, len(ws), b.String())
	}
}

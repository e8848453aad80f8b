package corpus

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubestandup/standup/internal/ciskip"
	"github.com/kubestandup/standup/pkg/audit"
	"github.com/kubestandup/standup/pkg/config"
	"github.com/kubestandup/standup/pkg/rehearse"
	"github.com/kubestandup/standup/pkg/render"
	"github.com/kubestandup/standup/pkg/tiers"
)

// TestRehearseAgreesWithAudit rehearses every corpus entry, as `standup
// rehearse` does, and holds the two views of a cold start to each other
// under Flux alone:
//   - every node the rehearsal finds deadlocked (NeverReady.Why starts
//     "deadlocked") is the Kustomization of an audit error;
//   - every Kustomization of a SECOND_ORDER_SAME_PASS error never
//     converges in the rehearsal.
//
// It logs how long each entry takes to rehearse (render, audit and the
// three contenders), and asserts nothing on time. It fails, never skips,
// when CI is set and the corpus is missing.
func TestRehearseAgreesWithAudit(t *testing.T) {
	if testing.Short() {
		t.Skip("the corpus renders a dozen real repositories: not a -short test")
	}
	dir := corpusDir()
	if _, err := os.Stat(filepath.Join(dir, "MANIFEST.md")); err != nil {
		ciskip.Skipf(t, "corpus missing at %s: %v", dir, err)
	}
	for _, e := range readManifest(t, dir) {
		for _, p := range e.paths {
			name := e.dir + " " + p
			t.Run(strings.ReplaceAll(name, "/", "_"), func(t *testing.T) {
				start := time.Now()
				rep, results := rehearseEntry(t, filepath.Join(dir, e.dir, p), filepath.Join(dir, e.repoRoot))
				t.Logf("%s: rehearsed in %s", name, time.Since(start).Round(time.Millisecond))
				checkAgreement(t, rep, results[0])
			})
		}
	}
}

// rehearseEntry renders, audits and rehearses one entry the way `standup
// rehearse` does, and returns the audit and each contender's result.
func rehearseEntry(t *testing.T, path, root string) (*audit.Report, []*rehearse.Result) {
	t.Helper()
	ctx := context.Background()
	res, err := render.Load(ctx, render.Options{Path: path, RepoRoot: root, Kinds: []string{render.KindKustomization, render.KindHelmRelease}})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(ctx, res.RepoRoot)
	if err != nil {
		t.Fatal(err)
	}
	boot, err := audit.DetectBootstrap(ctx, res.RepoRoot, res.Path)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := audit.Audit(res, cfg, audit.Options{Bootstrap: boot})
	if err != nil {
		t.Fatal(err)
	}
	scenario := rehearse.FromAudit(res, rep)
	var results []*rehearse.Result
	for _, c := range rehearse.Contenders(30*time.Second, 5*time.Second) {
		results = append(results, rehearse.Simulate(scenario, c, rehearse.DefaultModel()))
	}
	return rep, results
}

// checkAgreement compares the audit's errors with flux, the rehearsal of
// Flux alone.
func checkAgreement(t *testing.T, rep *audit.Report, flux *rehearse.Result) {
	t.Helper()
	errored := map[tiers.ID]bool{}
	var samePass []tiers.ID
	for _, h := range rep.Hazards {
		if h.Severity != audit.SeverityError {
			continue
		}
		errored[h.Kustomization] = true
		if h.Code == audit.CodeSecondOrderSamePass && !slices.Contains(samePass, h.Kustomization) {
			samePass = append(samePass, h.Kustomization)
		}
	}
	never := map[tiers.ID]string{}
	var deadlocked []string
	for _, n := range flux.Never {
		never[n.Node] = n.Why
		if strings.HasPrefix(n.Why, "deadlocked") {
			deadlocked = append(deadlocked, n.Node.NamespacedName())
			if !errored[n.Node] {
				t.Errorf("rehearse finds %s deadlocked under Flux alone, and audit reports no error for it: %s", n.Node, n.Why)
			}
		}
	}
	for _, ks := range samePass {
		if _, ok := never[ks]; !ok {
			t.Errorf("audit reports SECOND_ORDER_SAME_PASS for %s, and the rehearsal of Flux alone brings it to Ready", ks)
		}
	}
	t.Logf("Flux alone: %d never Ready, deadlocked %q; audit: %d Kustomizations with errors, %d with SECOND_ORDER_SAME_PASS",
		len(flux.Never), deadlocked, len(errored), len(samePass))
}

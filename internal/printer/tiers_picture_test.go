package printer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kubestandup/standup/internal/ciskip"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

func hrObj(ns, name string, appliedBy *tiers.ID, deps ...tiers.ID) flux.Object {
	o := flux.Object{Node: tiers.Node{ID: tiers.ID{Kind: flux.KindHelmRelease, Namespace: ns, Name: name}}, AppliedBy: appliedBy}
	for _, d := range deps {
		o.DependsOn = append(o.DependsOn, tiers.Dependency{ID: d})
	}
	return o
}

// wideReport is a graph whose tier 0 holds n Kustomizations, each applying
// a HelmRelease of its name, and a tier 1 of one Kustomization depending
// on the first of them.
func wideReport(t *testing.T, n int) TiersReport {
	t.Helper()
	var objs []flux.Object
	for i := range n {
		name := fmt.Sprintf("application-number-%02d", i)
		objs = append(objs, ksObj("apps", name, "./apps/"+name))
		objs = append(objs, hrObj("apps", name, &objs[len(objs)-1].ID))
	}
	objs = append(objs, ksObj("apps", "after", "./after", ksID("apps", "application-number-00")))
	return report(t, "wide", objs, objs, nil)
}

// appliedReport is a Kustomization of tier 1 applying two HelmReleases,
// one depending on the other, and a HelmRelease applied by no node.
func appliedReport(t *testing.T) TiersReport {
	t.Helper()
	infra := ksID("flux-system", "infra")
	ingress := tiers.ID{Kind: flux.KindHelmRelease, Namespace: "infra", Name: "ingress-nginx"}
	objs := []flux.Object{
		ksObj("flux-system", "crds", "./crds"),
		ksObj("flux-system", "infra", "./infra", ksID("flux-system", "crds")),
		hrObj("infra", "cert-manager", &infra),
		hrObj("infra", "ingress-nginx", &infra, tiers.ID{Kind: flux.KindHelmRelease, Namespace: "infra", Name: "cert-manager"}),
		hrObj("web", "podinfo", nil, ingress),
	}
	return report(t, "applied", objs, objs, nil)
}

// cycleReport is a graph refused for a cycle (a -> b -> a), drawn from the
// graph without the cycle's edges.
func cycleReport(t *testing.T) TiersReport {
	t.Helper()
	objs := []flux.Object{
		ksObj("flux-system", "base", "./base"),
		ksObj("flux-system", "a", "./a", ksID("flux-system", "b"), ksID("flux-system", "base")),
		ksObj("flux-system", "b", "./b", ksID("flux-system", "a")),
		ksObj("flux-system", "top", "./top", ksID("flux-system", "a")),
	}
	var nodes []tiers.Node
	for _, o := range objs {
		nodes = append(nodes, o.Node)
	}
	g, cycles, err := tiers.BreakCycles(nodes, tiers.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return NewTiersReport("cycle", g, objs, nil).WithCycles(cycles)
}

// TestPrintPicturesGolden: the pictures of a tier too wide for one row, of
// HelmReleases under the Kustomization that applies them, and of a cycle.
func TestPrintPicturesGolden(t *testing.T) {
	fixtures := map[string]func(*testing.T) TiersReport{
		"wrapped": func(t *testing.T) TiersReport { return wideReport(t, 14) },
		"applied": appliedReport,
		"cycle":   cycleReport,
	}
	for _, fixture := range []string{"wrapped", "applied", "cycle"} {
		for _, format := range []string{FormatDot, FormatMermaid} {
			name := "tiers_" + fixture + "." + format
			t.Run(name, func(t *testing.T) {
				var out bytes.Buffer
				if err := PrintTiers(&out, format, fixtures[fixture](t), Options{}); err != nil {
					t.Fatal(err)
				}
				compareGolden(t, filepath.Join("testdata", name+".golden"), out.Bytes())
			})
		}
	}
}

// TestDotLayout: without Graphviz, the lines the dot picture lays out: a
// tier too wide for one row wraps into rows no wider than the budget, each
// HelmRelease sits in the line under its applier's, every node once, and
// the estimated picture of 100 nodes and more is at most 4 times as wide
// as it is high.
func TestDotLayout(t *testing.T) {
	for _, n := range []int{3, 14, 50, 120} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			r := wideReport(t, n)
			p := place(r)
			width := func(n TierNode) int { return boxWidth(graphLabel(r, n, r.mixedKinds())) }
			layout := dotLayout(p, width)
			budget := rowBudget(p, width)
			seen := map[Ref]int{}
			lineOf := map[Ref]int{}
			line, widest := 0, 0
			for _, tier := range layout {
				for _, l := range tier.lines {
					used := 0
					for i, node := range l {
						seen[node.Ref]++
						lineOf[node.Ref] = line
						used += width(node)
						if i > 0 {
							used += dotNodeSep
						}
					}
					if used > budget && len(l) > 1 {
						t.Errorf("line %d is %d points wide, over the budget of %d", line, used, budget)
					}
					widest = max(widest, used)
					line++
				}
			}
			if len(seen) != 2*n+1 {
				t.Errorf("%d nodes laid out, want %d", len(seen), 2*n+1)
			}
			for ref, c := range seen {
				if c != 1 {
					t.Errorf("%v laid out %d times", ref, c)
				}
			}
			for rel, ks := range p.applier {
				if lineOf[rel] != lineOf[ks]+1 {
					t.Errorf("%v in line %d, its applier %v in line %d", rel, lineOf[rel], ks, lineOf[ks])
				}
			}
			if wraps := len(layout[0].lines) > 2; wraps != (n >= 14) {
				t.Errorf("tier 0 in %d lines for %d Kustomizations", len(layout[0].lines), n)
			}
			if height := line * dotLineHeight; n >= 50 && widest > 4*height {
				t.Errorf("estimated %d×%d points: wider than 4 times its height", widest, height)
			}
		})
	}
}

// TestDotPictureFitsAScreen renders the dot picture of 120 Kustomizations
// in one tier, each with its HelmRelease, with Graphviz (dot -Tjson) and
// checks its bounding box: no wider than 4 times its height.
func TestDotPictureFitsAScreen(t *testing.T) {
	dot, err := exec.LookPath("dot")
	if err != nil {
		ciskip.Skipf(t, "Graphviz's dot is not installed (scripts/test.sh installs graphviz): %v", err)
	}
	for _, tc := range []struct {
		name string
		r    TiersReport
	}{{"wide", wideReport(t, 120)}, {"applied", appliedReport(t)}, {"cycle", cycleReport(t)}} {
		t.Run(tc.name, func(t *testing.T) {
			var src bytes.Buffer
			if err := PrintTiers(&src, FormatDot, tc.r, Options{}); err != nil {
				t.Fatal(err)
			}
			w, h := dotBoundingBox(t, dot, src.Bytes())
			t.Logf("%s: %.0f×%.0f points", tc.name, w, h)
			if w > 4*h {
				t.Errorf("picture is %.0f×%.0f points: wider than 4 times its height", w, h)
			}
		})
	}
}

// dotBoundingBox renders src with dot -Tjson and returns the width and
// height of its bounding box (bb), in points.
func dotBoundingBox(t *testing.T, dot string, src []byte) (w, h float64) {
	t.Helper()
	cmd := exec.Command(dot, "-Tjson")
	cmd.Stdin = bytes.NewReader(src)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("dot -Tjson: %v\n%s\n%s", err, stderr.String(), src)
	}
	if stderr.Len() > 0 {
		t.Errorf("dot warns: %s", stderr.String())
	}
	var doc struct {
		BB string `json:"bb"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	var x0, y0, x1, y1 float64
	if _, err := fmt.Sscanf(strings.ReplaceAll(doc.BB, ",", " "), "%g %g %g %g", &x0, &y0, &x1, &y1); err != nil {
		t.Fatalf("bb %q: %v", doc.BB, err)
	}
	return x1 - x0, y1 - y0
}

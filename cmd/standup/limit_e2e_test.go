package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kubestandup/standup/internal/testenv"
	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

// TestResumeNamesTheLimit: the summary names what held the walk back, from
// what standup saw of the real kustomize-controller. A chain on the default
// pool (four workers) is held back by the chain; sixteen independent
// Kustomizations on a controller with --concurrent=1 by its one worker,
// which standup infers from the reconciles it saw running while others
// waited.
func TestResumeNamesTheLimit(t *testing.T) {
	t.Run("chain", func(t *testing.T) {
		ns := testenv.UniqueName("chain")
		var kss []testenv.KS
		var want []tiers.ID
		prev := ""
		for _, name := range []string{"a", "b", "c"} {
			k := testenv.KS{Namespace: ns, Name: name, Path: "./ok", Suspend: true, TargetNamespace: ns + "-" + name}
			if prev != "" {
				k.DependsOn = deps(prev)
			}
			kss, prev = append(kss, k), name
			want = append(want, tiers.ID{Kind: "Kustomization", Namespace: ns, Name: name})
		}
		w := sharedWorld(t, testenv.Options{}, ns, ns+"-a", ns+"-b", ns+"-c")
		publish(t, w, ns, "testdata/tree")
		create(t, w, kss...)

		res := runCLI(t, w, "resume", "-o", "json")
		if res.Code != ExitOK {
			t.Fatalf("resume exit %d: %v", res.Code, res.Err)
		}
		l := summaryOf(t, events(t, res.Stdout)).Limit
		if l == nil || l.Kind != wait.LimitChain || l.Reconciles != 3 || !slices.Equal(l.Chain, want) {
			t.Fatalf("limit = %+v, want the dependency chain a → b → c over 3 reconciles", l)
		}
		if l.Concurrent != 0 || l.Saving != 0 || l.CriticalPath <= 0 || l.Work < l.CriticalPath {
			t.Errorf("limit = %+v, want a chain with no --concurrent advice and its reconciles in the work", l)
		}

		// The text summary says the same for people; a re-run reconciles
		// nothing and names no limit.
		res = runCLI(t, w, "resume")
		if res.Code != ExitOK || strings.Contains(res.Stderr, "limit:") {
			t.Errorf("re-run on a Ready graph: exit %d, stderr %q; want no limit line", res.Code, res.Stderr)
		}
	})
	t.Run("pool", func(t *testing.T) {
		ns := testenv.UniqueName("wide")
		namespaces := []string{ns}
		var kss []testenv.KS
		for i := range 16 {
			name := fmt.Sprintf("n%02d", i)
			kss = append(kss, testenv.KS{Namespace: ns, Name: name, Path: "./ok", Suspend: true, TargetNamespace: ns + "-" + name})
			namespaces = append(namespaces, ns+"-"+name)
		}
		w := sharedWorld(t, testenv.Options{ControllerArgs: []string{"--concurrent=1"}}, namespaces...)
		publish(t, w, ns, "testdata/tree")
		create(t, w, kss...)

		res := runCLI(t, w, "resume")
		if res.Code != ExitOK {
			t.Fatalf("resume exit %d: %v", res.Code, res.Err)
		}
		for _, want := range []string{"limit: kustomize-controller's worker pool. 16 reconciles took", "of work on 1 worker (", "--concurrent 2 could save about"} {
			if !strings.Contains(res.Stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, res.Stderr)
			}
		}
	})
}

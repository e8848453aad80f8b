package main

import (
	"context"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

func TestResumeNames(t *testing.T) {
	cases := []struct {
		args    []string
		want    []string
		wantErr string
	}{
		{args: nil, want: nil},
		{args: []string{"apps"}, want: []string{"apps"}},
		{args: []string{"ks", "apps", "flux-system/infra"}, want: []string{"apps", "flux-system/infra"}},
		{args: []string{"Kustomization", "apps"}, want: []string{"apps"}},
		{args: []string{"ks"}, wantErr: "name the Kustomizations"},
		{args: []string{"hr", "podinfo", "apps/web"}, want: []string{"podinfo", "apps/web"}},
		{args: []string{"HelmRelease", "podinfo"}, want: []string{"podinfo"}},
		{args: []string{"hr"}, wantErr: "resume hr: name the HelmReleases"},
		{args: []string{"a/b/c"}, wantErr: "not NAME or NAMESPACE/NAME"},
	}
	for _, tc := range cases {
		got, err := resumeNames(tc.args)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || codeOf(err) != ExitUsage {
				t.Errorf("resumeNames(%v) = %v, %v; want usage error with %q", tc.args, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("resumeNames(%v) = %v, %v; want %v", tc.args, got, err, tc.want)
		}
	}
}

// TestMaxInflightRefusesANegative: --max-inflight -1 is a usage error in
// one line naming the flag and what it takes, before any request.
func TestMaxInflightRefusesANegative(t *testing.T) {
	kubeconfig, requests := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusServiceUnavailable)
	})
	out, errOut, code := run(t, "standup", "resume", "--kubeconfig", kubeconfig, "--max-inflight", "-1")
	want := "standup: --max-inflight -1: want the most reconciles at once, or 0 for no limit\n"
	if code != ExitUsage || out != "" || errOut != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and %q", code, out, errOut, want)
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d API requests", n)
	}
}

// TestUnmatchedNamesSayTheKind: `resume hr podinfo` with no such node is
// refused naming a HelmRelease and "podinfo" as typed; without a kind
// word, the kinds walked.
func TestUnmatchedNamesSayTheKind(t *testing.T) {
	objs := []flux.Object{{Node: tiers.Node{ID: tiers.ID{Kind: flux.KindKustomization, Namespace: "flux-system", Name: "apps"}}}}
	in, err := readResumeInput(context.Background(), resumeOptions{}, []string{"hr", "podinfo"})
	if err != nil || in.kind != flux.KindHelmRelease {
		t.Fatalf("readResumeInput(hr podinfo) = kind %q, %v", in.kind, err)
	}
	tests := []struct {
		sel   tiers.Selection
		kinds []string
		want  string
	}{
		{tiers.Selection{Only: in.names}, []string{in.kind}, `no HelmRelease named "podinfo" (see standup tiers)`},
		{tiers.Selection{Only: []string{"web", "apps/db"}}, []string{flux.KindKustomization, flux.KindHelmRelease}, `no Kustomization or HelmRelease named "web", "apps/db" (see standup tiers)`},
		{tiers.Selection{Namespace: "apps", Exclude: []string{"web"}}, []string{flux.KindKustomization}, `no Kustomization named "web" in namespace apps (see standup tiers)`},
	}
	for _, tt := range tests {
		err := checkSelection(objs, tt.sel, tt.kinds, "standup")
		if err == nil || err.Error() != tt.want || codeOf(err) != ExitUsage {
			t.Errorf("checkSelection(%+v) = %v; want usage error %q", tt.sel, err, tt.want)
		}
	}
}

package main

import (
	"reflect"
	"strings"
	"testing"
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

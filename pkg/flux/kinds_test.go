package flux

import (
	"slices"
	"strings"
	"testing"
)

func TestParseKinds(t *testing.T) {
	tests := []struct {
		words   []string
		want    []string
		wantErr string
	}{
		{words: []string{"Kustomization"}, want: []string{KindKustomization}},
		{words: []string{"ks"}, want: []string{KindKustomization}},
		{words: []string{"KS", "Kustomizations"}, want: []string{KindKustomization}},
		{words: []string{"hr"}, want: []string{KindHelmRelease}},
		{words: []string{"HR", "ks"}, want: []string{KindHelmRelease, KindKustomization}},
		{words: []string{"helmrelease", "HelmReleases", "kustomization"}, want: []string{KindHelmRelease, KindKustomization}},
		{words: []string{"rset"}, want: []string{KindResourceSet}},
		{words: []string{"ks", "hr", "RSET", "ResourceSets"}, want: []string{KindKustomization, KindHelmRelease, KindResourceSet}},
		{words: []string{"fluxinstance"}, wantErr: `unknown kind "fluxinstance" (want Kustomization or ks, HelmRelease or hr, ResourceSet or rset)`},
		{words: []string{"ks", "gitrepository"}, wantErr: `unknown kind "gitrepository"`},
		{words: []string{""}, wantErr: `unknown kind ""`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.words, ","), func(t *testing.T) {
			got, err := ParseKinds(tt.words)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseKinds(%q) = %v, %v; want error %q", tt.words, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Fatalf("ParseKinds(%q) = %v, %v; want %v", tt.words, got, err, tt.want)
			}
		})
	}
}

// TestKindWords: KindWords lists every word ParseKind takes, each once,
// Kustomization's first, then HelmRelease's, then ResourceSet's, the
// short name first.
func TestKindWords(t *testing.T) {
	want := []string{"ks", "kustomization", "kustomizations", "hr", "helmrelease", "helmreleases", "rset", "resourceset", "resourcesets"}
	if got := KindWords(); !slices.Equal(got, want) {
		t.Errorf("KindWords() = %q, want %q", got, want)
	}
	for _, w := range KindWords() {
		if _, ok := ParseKind(w); !ok {
			t.Errorf("ParseKind(%q) refuses a word KindWords lists", w)
		}
	}
}

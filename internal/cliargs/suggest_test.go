package cliargs

import "testing"

func TestSuggest(t *testing.T) {
	commands := []string{"version", "tiers", "resume", "crds", "audit", "check", "completion"}
	flags := []string{"path", "repo-root", "allow-missing", "no-headers", "kinds", "kubeconfig", "context", "namespace", "output", "quiet", "no-color", "timeout", "request-timeout", "verbose", "dry-run", "max-inflight"}
	tests := []struct {
		word       string
		candidates []string
		want       string
	}{
		{"tirs", commands, "tiers"},
		{"teirs", commands, "tiers"},
		{"TIERS", commands, ""}, // the command itself: nothing to suggest
		{"resmue", commands, "resume"},
		{"rsume", commands, "resume"},
		{"chekc", commands, "check"},
		{"crd", commands, "crds"},
		{"autid", commands, "audit"},
		{"verison", commands, "version"},
		{"compl", commands, "completion"}, // the one command it begins
		{"c", commands, ""},               // too short to guess
		{"co", commands, "completion"},
		{"xyzzy", commands, ""},
		{"apply", commands, ""},
		{"pth", flags, "path"},
		{"dry-rn", flags, "dry-run"},
		{"dryrun", flags, "dry-run"},
		{"max-inflite", flags, "max-inflight"},
		{"kubeconfg", flags, "kubeconfig"},
		{"no-header", flags, "no-headers"},
		{"nope", flags, ""},
		{"ki", flags, "kinds"},
		{"n", flags, ""},
	}
	for _, tt := range tests {
		if got := Suggest(tt.word, tt.candidates); got != tt.want {
			t.Errorf("Suggest(%q) = %q, want %q", tt.word, got, tt.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "abc", 0},
		{"", "abc", 3},
		{"tirs", "tiers", 1},
		{"resmue", "resume", 1}, // one swap
		{"kitten", "sitting", 3},
		{"ça", "ca", 1}, // letters, not bytes
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := editDistance(tt.b, tt.a); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d (symmetric)", tt.b, tt.a, got, tt.want)
		}
	}
}

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/kubestandup/standup/internal/ciskip"
	"github.com/kubestandup/standup/internal/printer"
)

func TestChooseVersion(t *testing.T) {
	vcs := func(revision, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{
			{Key: "-compiler", Value: "gc"},
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: revision},
			{Key: "vcs.time", Value: "2026-12-01T18:34:00Z"},
			{Key: "vcs.modified", Value: modified},
		}
	}
	built := func(mainVersion string, settings []debug.BuildSetting) *debug.BuildInfo {
		return &debug.BuildInfo{
			Main:     debug.Module{Path: "github.com/kubestandup/standup", Version: mainVersion},
			Settings: settings,
		}
	}
	tests := []struct {
		name    string
		stamped string
		info    *debug.BuildInfo
		want    string
	}{
		{
			name:    "make build or a release stamps the version: it wins",
			stamped: "v1.2.3",
			info:    built("v1.2.2", vcs("2359559a1b2c3d4e5f60718293a4b5c6d7e8f901", "false")),
			want:    "v1.2.3",
		},
		{
			name:    "make build in an untagged checkout stamps git describe's commit",
			stamped: "2359559-dirty",
			info:    built("(devel)", nil),
			want:    "2359559-dirty",
		},
		{
			name:    "go install ...@v1.2.3 records the module version",
			stamped: devVersion,
			info:    built("v1.2.3", nil),
			want:    "v1.2.3",
		},
		{
			name:    "go install of a pre-release",
			stamped: devVersion,
			info:    built("v1.3.0-rc.1", nil),
			want:    "v1.3.0-rc.1",
		},
		{
			name:    "go build in a checkout (Go 1.24+) records a pseudo-version",
			stamped: devVersion,
			info:    built("v0.0.0-20261201183400-2359559a1b2c+dirty", vcs("2359559a1b2c3d4e5f60718293a4b5c6d7e8f901", "true")),
			want:    "v0.0.0-20261201183400-2359559a1b2c+dirty",
		},
		{
			name:    "an empty stamp (no git for make build) falls back like no stamp",
			stamped: "",
			info:    built("v1.2.3", nil),
			want:    "v1.2.3",
		},
		{
			name:    "a devel build with its commit",
			stamped: devVersion,
			info:    built("(devel)", vcs("2359559a1b2c3d4e5f60718293a4b5c6d7e8f901", "false")),
			want:    devVersion + "+2359559a1b2c",
		},
		{
			name:    "a devel build with uncommitted changes",
			stamped: devVersion,
			info:    built("(devel)", vcs("2359559a1b2c3d4e5f60718293a4b5c6d7e8f901", "true")),
			want:    devVersion + "+2359559a1b2c.dirty",
		},
		{
			name:    "a short revision is kept whole",
			stamped: devVersion,
			info:    built("(devel)", vcs("2359559", "false")),
			want:    devVersion + "+2359559",
		},
		{
			name:    "a devel build without VCS information (go run, -buildvcs=false)",
			stamped: devVersion,
			info:    built("(devel)", []debug.BuildSetting{{Key: "-compiler", Value: "gc"}}),
			want:    devVersion,
		},
		{
			name:    "a test binary: empty main version",
			stamped: devVersion,
			info:    built("", nil),
			want:    devVersion,
		},
		{
			name:    "no build info at all",
			stamped: devVersion,
			info:    nil,
			want:    devVersion,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := chooseVersion(tt.stamped, tt.info); got != tt.want {
				t.Errorf("chooseVersion(%q, …) = %q, want %q", tt.stamped, got, tt.want)
			}
		})
	}
}

// TestMakeBuildEmbedsTheVersion runs the Makefile's build target, as a
// user does, and asks the binary: the version it reports is what git
// describe says about the checkout.
func TestMakeBuildEmbedsTheVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("runs make build (not run with -short)")
	}
	if runtime.GOOS == "windows" {
		t.Skip("the Makefile is for Unix shells")
	}
	if _, err := exec.LookPath("make"); err != nil {
		ciskip.Skipf(t, "make is not installed")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	describe := exec.Command("git", "describe", "--tags", "--always", "--dirty")
	describe.Dir = root
	out, err := describe.Output()
	if err != nil {
		ciskip.Skipf(t, "not a git checkout (git describe: %v)", err)
	}
	want := strings.TrimSpace(string(out))

	bindir := t.TempDir()
	build := exec.Command("make", "--no-print-directory", "build", "BINDIR="+bindir)
	build.Dir = root
	build.Env = withoutVar(os.Environ(), "VERSION") // the Makefile's default, not the caller's
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("make build: %v\n%s", err, out)
	}
	report, err := exec.Command(filepath.Join(bindir, "standup"), "version", "-o", "json").Output()
	if err != nil {
		t.Fatalf("bin/standup version -o json: %v", err)
	}
	var info printer.Version
	if err := json.Unmarshal(report, &info); err != nil {
		t.Fatalf("version -o json: %v\n%s", err, report)
	}
	if info.Version != want {
		t.Errorf("make build reports version %q, want git describe's %q", info.Version, want)
	}
}

// withoutVar is env without name: make takes an environment variable, even
// an empty one, over a ?= default.
func withoutVar(env []string, name string) []string {
	kept := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			kept = append(kept, kv)
		}
	}
	return kept
}

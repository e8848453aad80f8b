package main

import (
	"runtime/debug"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	"github.com/urfave/cli/v2"

	"github.com/kubestandup/standup/internal/printer"
)

// devVersion is what a build that says nothing about its release reports.
const devVersion = "v0.1.0-dev"

// version is the release stamped at link time by make build and the release
// archives (-ldflags "-X main.version=v1.2.3"). It keeps devVersion when
// nothing was stamped; buildVersion then asks the build info.
var version = devVersion

// buildVersion is standup's version as `standup version` reports it.
func buildVersion() string {
	info, _ := debug.ReadBuildInfo()
	return chooseVersion(version, info)
}

// chooseVersion picks the most precise version a binary knows about itself:
// the version stamped at link time; else the main module's version, which
// `go install github.com/kubestandup/standup/cmd/standup@v1.2.3` records as
// v1.2.3 (and go build in a checkout, since Go 1.24, as a pseudo-version);
// else devVersion, with the commit and a dirty mark when the build recorded
// them, so that two dev builds can still be told apart.
func chooseVersion(stamped string, info *debug.BuildInfo) string {
	if stamped != "" && stamped != devVersion {
		return stamped
	}
	if info == nil {
		return devVersion
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var revision string
	var modified bool
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if revision == "" {
		return devVersion
	}
	const shortRevision = 12 // as Go's pseudo-versions abbreviate a commit
	if len(revision) > shortRevision {
		revision = revision[:shortRevision]
	}
	// Semver build metadata: after "+", dot-separated identifiers.
	v := devVersion + "+" + revision
	if modified {
		v += ".dirty"
	}
	return v
}

func currentVersion() printer.Version {
	return printer.Version{
		Version:             buildVersion(),
		FluxAPIs:            []string{kustomizev1.GroupVersion.String(), sourcev1.GroupVersion.String()},
		KustomizeController: "v1.7.3 to v1.9.6 (Flux v2.7 to v2.9)",
	}
}

func versionCommand(streams Streams) *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print standup's version and the Flux APIs it speaks",
		Action: func(c *cli.Context) error {
			return printer.PrintVersion(streams.Out, globals(c).Output, currentVersion())
		},
	}
}

package main

import (
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	"github.com/urfave/cli/v2"

	"github.com/kubestandup/standup/internal/printer"
)

// version is standup's release; builds may override it with -ldflags -X main.version=...
var version = "v0.1.0-dev"

func currentVersion() printer.Version {
	return printer.Version{
		Version:             version,
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

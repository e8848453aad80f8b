package main

import (
	"encoding/json"
	"fmt"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	"github.com/urfave/cli/v2"
)

// version is standup's release; builds may override it with -ldflags -X main.version=...
var version = "v0.1.0-dev"

// versionInfo is what `standup version` prints.
type versionInfo struct {
	Version string `json:"version"`
	// FluxAPIs are the Flux API group versions standup reads and writes.
	FluxAPIs []string `json:"fluxAPIs"`
	// KustomizeController is the kustomize-controller release range standup is tested against.
	KustomizeController string `json:"kustomizeController"`
}

func currentVersion() versionInfo {
	return versionInfo{
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
			info := currentVersion()
			switch out := globals(c).Output; out {
			case "json":
				enc := json.NewEncoder(streams.Out)
				enc.SetIndent("", "  ")
				return enc.Encode(info)
			case "", "table", "text":
				fmt.Fprintf(streams.Out, "standup %s\n", info.Version)
				for _, api := range info.FluxAPIs {
					fmt.Fprintf(streams.Out, "flux API: %s\n", api)
				}
				fmt.Fprintf(streams.Out, "tested with kustomize-controller: %s\n", info.KustomizeController)
				return nil
			default:
				return usageErrorf("version: unknown output format %q (want text or json)", out)
			}
		},
	}
}

package printer

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Version is what `standup version` prints.
type Version struct {
	Version string `json:"version"`
	// FluxAPIs are the Flux API group versions standup reads and writes.
	FluxAPIs []string `json:"fluxAPIs"`
	// KustomizeController is the kustomize-controller release range standup is tested against.
	KustomizeController string `json:"kustomizeController"`
}

// versionPrinters are the formats of PrintVersion, default first.
func versionPrinters() []DocPrinter[Version] {
	return []DocPrinter[Version]{
		{FormatText, FromBuilder(writeVersionText)},
		{FormatJSON, FromWriter(func(w io.Writer, v Version) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(v)
		})},
	}
}

// PrintVersion writes v as text or json.
func PrintVersion(w io.Writer, format string, v Version) error {
	return Print(w, versionPrinters(), format, v, RenderContext{}, "version")
}

func writeVersionText(b *strings.Builder, v Version) {
	fmt.Fprintf(b, "standup %s\n", v.Version)
	for _, api := range v.FluxAPIs {
		fmt.Fprintf(b, "flux API: %s\n", api)
	}
	fmt.Fprintf(b, "tested with kustomize-controller: %s\n", v.KustomizeController)
}

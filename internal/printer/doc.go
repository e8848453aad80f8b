// Package printer renders standup's results for people and for programs.
// Every printer is a pure writer to an io.Writer: it never talks to a
// cluster and never decides by itself whether colour is wanted (the caller
// passes Options.Color after honouring NO_COLOR and terminal detection).
//
// The tiers printers take a TiersReport, a view model built by
// NewTiersReport from a *tiers.Graph and the flux.Objects behind it, and
// write it in one of TiersFormats: table, json, yaml, dot, mermaid or shell.
// The json and yaml schemas are documented in docs/output.md.
//
// All lipgloss styles live in styles.go, by name, so that every command
// looks the same.
package printer

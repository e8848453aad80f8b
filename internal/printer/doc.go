// Package printer renders standup's results for people and for programs:
// every output standup writes, in one place.
//
// The registry (formats.go) holds each command's -o values, registered once
// and taken from the printers that write them; Registry.Validate is the one
// check of -o, made before a command runs. Every command speaks one
// vocabulary: text for people (table is its other name), json for
// programs. Each whole-document printer (tiers, the resume --dry-run plan,
// check, report, version) is a table of formats (render.go: DocPrinter),
// written by Print, which renders completely before it writes, so a failure
// leaves the output untouched.
//
// The cold-start model's printers (audit, audit --fix, audit
// --from-cluster, rehearse) are the coldstart package's, on these tables,
// styles and helpers, with their own part of the registry: this package
// imports neither pkg/audit nor what imports it, so that the live commands
// print through it without depending on the linter.
//
// The tiers printers take a TiersReport, a view model built by
// NewTiersReport from a *tiers.Graph and the flux.Objects behind it, and
// write it in one of TiersFormats: text, json, yaml, dot, mermaid or shell.
// The text table is complete in every row, for awk; its footer is printed
// apart (PrintTiersFooter), to stderr. The json and yaml schemas, like
// every document below, are documented in docs/output.md, and a test holds
// the doc to the types.
//
// A walk (resume, crds) is printed as it happens by a WalkPrinter: NDJSON on
// stdout, each line with WalkSchemaVersion, a live view redrawn on a
// terminal, or plain timestamped lines for CI logs, all from the one
// wait.Event type. The crds command's report is a CRDsPrinter: lines as it
// goes (crds.go), or one json document at the end (crds_report.go).
// The live view (walk_live.go) sizes itself to the terminal
// at every redraw, draws at most ten frames a second, ticks every second and
// follows SIGWINCH; its layout (walk_live_view.go) is a function of the
// nodes' last events, the time and the size alone, and it is tested through
// a terminal emulator that keeps a scrollback (walk_live_term_test.go).
//
// Terminal detection and NO_COLOR are decided in terminal.go (UseColor); a
// printer itself never decides colour, it takes Options.Color. All lipgloss
// styles live in styles.go, by name, so that every command looks the same.
package printer

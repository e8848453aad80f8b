// Package coldstart renders the documents of standup's cold-start model:
// the audit (text, json, SARIF), audit --fix (text, json, the diff), audit
// --from-cluster's standup.yaml skeleton, and the rehearsal. They import
// pkg/audit, the offline linter, directly or through pkg/fix and
// pkg/rehearse; the live commands (resume, crds, check) print through
// internal/printer, which imports none of them
// (test/hygiene's TestLiveCommandsDoNotImportTheLinter holds that).
//
// The printers are printer's: each document is a table of
// printer.DocPrinter written by printer.Print, with printer's styles and
// one vocabulary of formats. Commands is this package's part of the
// registry of -o values, which cmd/standup joins with printer.Commands.
package coldstart

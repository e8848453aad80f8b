package coldstart

import (
	"encoding/json"
	"io"

	"github.com/kubestandup/standup/internal/printer"
	"github.com/kubestandup/standup/pkg/audit"
)

// AuditSchemaVersion is the version of the audit json schema (docs/audit.md).
// It changes only when a field is removed or changes meaning.
// Version 2 grouped the hazards into findings (a code and a kind with
// every place) and added notices and the bootstrap.
const AuditSchemaVersion = 2

// auditDocument is the audit json document.
type auditDocument struct {
	SchemaVersion int                  `json:"schemaVersion"`
	Path          string               `json:"path"`
	Summary       auditCounts          `json:"summary"`
	Findings      []audit.Finding      `json:"findings"`
	Kinds         []audit.KindUse      `json:"kinds"`
	Bootstrap     []audit.BootstrapUse `json:"bootstrap"`
	Notes         []string             `json:"notes"`
}

// auditCounts is the summary of an audit.
type auditCounts struct {
	Kustomizations int `json:"kustomizations"`
	Objects        int `json:"objects"`
	Unrendered     int `json:"unrendered"`
	Failed         int `json:"failed"`
	Errors         int `json:"errors"`
	Warnings       int `json:"warnings"`
	Notices        int `json:"notices"`
	// Places counts the places of every finding.
	Places int `json:"places"`
	// Clusters names the clusters the audited objects land in
	// (audit.Report.Clusters): "local", then a hub-and-spoke fleet's
	// spokes.
	Clusters []string `json:"clusters"`
}

func writeAuditJSON(w io.Writer, r *audit.Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(newAuditDocument(r))
}

// newAuditDocument is the json document of r.
func newAuditDocument(r *audit.Report) auditDocument {
	return auditDocument{
		SchemaVersion: AuditSchemaVersion,
		Path:          r.Path,
		Summary: auditCounts{Kustomizations: r.Kustomizations, Objects: r.Objects, Unrendered: r.Unrendered, Failed: r.Failed,
			Errors: r.Errors(), Warnings: r.Warnings(), Notices: r.Notices(), Places: len(r.Hazards), Clusters: printer.NonNil(r.Clusters)},
		Findings:  printer.NonNil(r.Findings),
		Kinds:     printer.NonNil(r.Kinds),
		Bootstrap: printer.NonNil(r.Bootstrap),
		Notes:     printer.NonNil(r.Notes),
	}
}

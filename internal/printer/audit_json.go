package printer

import (
	"encoding/json"
	"io"

	"github.com/kubestandup/standup/pkg/audit"
)

// AuditSchemaVersion is the version of the audit json schema (docs/audit.md).
// It changes only when a field is removed or changes meaning.
const AuditSchemaVersion = 1

// auditDocument is the audit json document.
type auditDocument struct {
	SchemaVersion int             `json:"schemaVersion"`
	Path          string          `json:"path"`
	Summary       auditCounts     `json:"summary"`
	Hazards       []audit.Hazard  `json:"hazards"`
	Kinds         []audit.KindUse `json:"kinds"`
	Notes         []string        `json:"notes"`
}

// auditCounts is the summary of an audit.
type auditCounts struct {
	Kustomizations int `json:"kustomizations"`
	Objects        int `json:"objects"`
	Unrendered     int `json:"unrendered"`
	Failed         int `json:"failed"`
	Errors         int `json:"errors"`
	Warnings       int `json:"warnings"`
}

func writeAuditJSON(w io.Writer, r *audit.Report) error {
	doc := auditDocument{
		SchemaVersion: AuditSchemaVersion,
		Path:          r.Path,
		Summary:       auditCounts{Kustomizations: r.Kustomizations, Objects: r.Objects, Unrendered: r.Unrendered, Failed: r.Failed, Errors: r.Errors(), Warnings: r.Warnings()},
		Hazards:       nonNil(r.Hazards),
		Kinds:         nonNil(r.Kinds),
		Notes:         nonNil(r.Notes),
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

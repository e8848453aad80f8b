package coldstart

import (
	"encoding/json"
	"io"

	"github.com/kubestandup/standup/internal/printer"
	"github.com/kubestandup/standup/pkg/audit"
	"github.com/kubestandup/standup/pkg/fix"
	"github.com/kubestandup/standup/pkg/tiers"
)

// FixSchemaVersion is the version of the audit --fix json schema
// (docs/audit.md). It changes only when a field is removed or changes
// meaning.
const FixSchemaVersion = 1

// fixDocument is the audit --fix json document.
type fixDocument struct {
	SchemaVersion int          `json:"schemaVersion"`
	DryRun        bool         `json:"dryRun"`
	Files         []fixFile    `json:"files"`
	NotFixed      []fixSkipped `json:"notFixed"`
	// Moves are the findings that need objects moved, as audit's json has them.
	Moves []audit.Finding `json:"moves"`
	// Diff is the unified diff of Files, as -o diff prints it.
	Diff string `json:"diff"`
	// After is audit's json document of the checkout once Files are written.
	After *auditDocument `json:"after,omitempty"`
}

// fixFile is one file and its edits.
type fixFile struct {
	File  string    `json:"file"`
	Edits []fixEdit `json:"edits"`
}

// fixEdit is one change of one Kustomization.
type fixEdit struct {
	Kustomization tiers.ID `json:"kustomization"`
	Field         string   `json:"field,omitempty"`
	fix.Change
	Places int `json:"places"`
}

// fixSkipped is an edit not made, and why.
type fixSkipped struct {
	fixEdit
	File   string `json:"file,omitempty"`
	Reason string `json:"reason"`
}

func newFixEdit(e fix.Edit) fixEdit {
	return fixEdit{Kustomization: e.Kustomization, Field: e.Change.Field(), Change: e.Change, Places: e.Places}
}

func writeFixJSON(w io.Writer, d FixDocument) error {
	p := d.Plan
	doc := fixDocument{SchemaVersion: FixSchemaVersion, DryRun: d.DryRun, Files: []fixFile{}, NotFixed: []fixSkipped{},
		Moves: printer.NonNil(p.Moves), Diff: p.Diff()}
	for _, f := range p.Files {
		file := fixFile{File: f.Name, Edits: []fixEdit{}}
		for _, e := range f.Edits {
			file.Edits = append(file.Edits, newFixEdit(e))
		}
		doc.Files = append(doc.Files, file)
	}
	for _, s := range p.NotFixed {
		doc.NotFixed = append(doc.NotFixed, fixSkipped{fixEdit: newFixEdit(s.Edit), File: s.File, Reason: s.Reason})
	}
	if d.After != nil {
		after := newAuditDocument(d.After)
		doc.After = &after
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

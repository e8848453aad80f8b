package printer

import (
	"encoding/json"
	"io"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

// CRDsSchemaVersion is the version of the crds and crds capture json
// documents (docs/output.md). It changes only when a field is removed or
// changes meaning.
const CRDsSchemaVersion = 1

// CRDsFormats returns the formats of the crds command and its capture
// subcommand, default first.
func CRDsFormats() []string { return []string{FormatText, FormatJSON} }

// The modes of the crds command, as its json document names them.
const (
	// CRDsModeRepair is `crds`: diagnose stuck Kustomizations, then repair them.
	CRDsModeRepair = "repair"
	// CRDsModeAll is `crds --all`: create every bundle CRD the cluster lacks.
	CRDsModeAll = "all"
)

// The states of a bundle CRD in the crds --all document.
const (
	// CRDAbsent is a CRD a dry run would create.
	CRDAbsent = "absent"
	// CRDCreated is a CRD standup created.
	CRDCreated = "created"
	// CRDExists is a CRD on the cluster already, left alone.
	CRDExists = "exists"
)

// crdsDocument is the crds -o json document, written once the command ends.
type crdsDocument struct {
	SchemaVersion int    `json:"schemaVersion"`
	Mode          string `json:"mode"`
	DryRun        bool   `json:"dryRun"`
	// Bundle is the CRD bundle directory read (mode repair); empty when
	// there is none, which a dry run allows: it diagnoses, not repairs.
	Bundle string `json:"bundle,omitempty"`
	// Repairs are the stuck Kustomizations (mode repair); empty for mode all.
	Repairs []crdRepair `json:"repairs"`
	// CRDs are the bundle CRDs and what became of them (mode all); empty
	// for mode repair, whose creations are the repair walk's.
	CRDs []crdState `json:"crds"`
	// Walk is the repair walk's summary; absent when no walk ran.
	Walk *wait.Summary `json:"walk,omitempty"`
}

// crdRepair is one stuck Kustomization and the CRDs that will repair it.
type crdRepair struct {
	Diagnosis crds.Diagnosis `json:"diagnosis"`
	// Resolvable says the bundle holds a CRD for every missing kind.
	Resolvable bool `json:"resolvable"`
	// Create lists those CRDs, created once the deadlock is proven; empty
	// when the bundle lacks one, for nothing is created then.
	Create []crdFile `json:"create"`
	// Releases are, after the repair walk, the HelmReleases of the chart
	// form (crds.ChartReleases); empty for a dry run and for any other form.
	Releases []crds.ChartRelease `json:"releases"`
}

// crdFile names a bundle CRD and the file that holds it.
type crdFile struct {
	Name string `json:"name"`
	File string `json:"file"`
}

// crdState is one bundle CRD of crds --all.
type crdState struct {
	Name string `json:"name"`
	// File is the bundle file, when the CRD was read from one this run.
	File  string `json:"file,omitempty"`
	State string `json:"state"`
}

// CRDsPrinter prints what the crds command finds and does: as it happens
// for people (text), or as one json document when Close is called.
type CRDsPrinter interface {
	// Repairs reports the stuck Kustomizations and what will repair each.
	Repairs([]crds.Repair)
	// Bundle reports the CRD bundle directory the repairs come from, after
	// Repairs: "" when there is none (crds --dry-run without one), which
	// the text report says when something is stuck.
	Bundle(dir string)
	// NothingChanged ends a dry run of repairs.
	NothingChanged()
	// CreatePlan reports what crds --all --dry-run would create.
	CreatePlan(crds.Plan)
	// Created reports what crds --all created; complete says the run ended
	// without an error.
	Created(res crds.Result, complete bool)
	// Walked records the repair walk's summary (the walk prints its own
	// progress).
	Walked(wait.Summary)
	// Charts reports, after the walk, the HelmReleases of the chart form
	// that the repaired Kustomization ks applied (crds.ChartReleases).
	Charts(ks tiers.ID, releases []crds.ChartRelease)
	// Close ends the report: the json document is written then.
	Close() error
}

// NewCRDsPrinter returns the crds printer for format, one of CRDsFormats.
// mode is CRDsModeRepair or CRDsModeAll.
func NewCRDsPrinter(w io.Writer, format, mode string, dryRun bool) CRDsPrinter {
	if canonicalFormat(format) == FormatJSON {
		return &crdsJSON{w: w, doc: crdsDocument{SchemaVersion: CRDsSchemaVersion, Mode: mode, DryRun: dryRun, Repairs: []crdRepair{}, CRDs: []crdState{}}}
	}
	return &crdsText{w: w}
}

// crdsText prints each fact as it comes, the lines of PrintRepairs and its
// neighbours.
type crdsText struct {
	w     io.Writer
	stuck int
}

func (p *crdsText) Repairs(r []crds.Repair) {
	p.stuck = len(r)
	PrintRepairs(p.w, r)
}

func (p *crdsText) Bundle(dir string) {
	if dir == "" && p.stuck > 0 {
		PrintNoBundle(p.w)
	}
}

func (p *crdsText) NothingChanged()                        { PrintNothingChanged(p.w) }
func (p *crdsText) CreatePlan(plan crds.Plan)              { PrintCreatePlan(p.w, plan) }
func (p *crdsText) Created(res crds.Result, complete bool) { PrintCreated(p.w, res, complete) }
func (p *crdsText) Walked(wait.Summary)                    {}
func (p *crdsText) Charts(ks tiers.ID, r []crds.ChartRelease) {
	PrintChartReleases(p.w, ks, r)
}
func (p *crdsText) Close() error { return nil }

// crdsJSON gathers the document and writes it on Close.
type crdsJSON struct {
	w   io.Writer
	doc crdsDocument
}

func (p *crdsJSON) Repairs(repairs []crds.Repair) {
	for _, r := range repairs {
		files := make([]crdFile, len(r.Create))
		for i, e := range r.Create {
			files[i] = crdFile{Name: e.CRD.Name, File: e.File}
		}
		p.doc.Repairs = append(p.doc.Repairs, crdRepair{Diagnosis: r.Diagnosis, Resolvable: r.Create != nil, Create: files, Releases: []crds.ChartRelease{}})
	}
}

func (p *crdsJSON) Charts(ks tiers.ID, releases []crds.ChartRelease) {
	for i := range p.doc.Repairs {
		if r := &p.doc.Repairs[i]; r.Diagnosis.Kustomization == ks {
			r.Releases = append(r.Releases, releases...)
		}
	}
}

func (p *crdsJSON) Bundle(dir string) { p.doc.Bundle = dir }

func (p *crdsJSON) NothingChanged() {}

func (p *crdsJSON) CreatePlan(plan crds.Plan) {
	for _, e := range plan.Create {
		p.doc.CRDs = append(p.doc.CRDs, crdState{Name: e.CRD.Name, File: e.File, State: CRDAbsent})
	}
	p.existing(plan.Existing)
}

func (p *crdsJSON) Created(res crds.Result, _ bool) {
	for _, n := range res.Created {
		p.doc.CRDs = append(p.doc.CRDs, crdState{Name: n, State: CRDCreated})
	}
	p.existing(res.Existing)
}

func (p *crdsJSON) existing(names []string) {
	for _, n := range names {
		p.doc.CRDs = append(p.doc.CRDs, crdState{Name: n, State: CRDExists})
	}
}

func (p *crdsJSON) Walked(s wait.Summary) { p.doc.Walk = &s }

func (p *crdsJSON) Close() error {
	enc := json.NewEncoder(p.w)
	enc.SetIndent("", "  ")
	return enc.Encode(p.doc)
}

// captureDocument is the crds capture -o json document.
type captureDocument struct {
	SchemaVersion int `json:"schemaVersion"`
	// Directory is --out.
	Directory string `json:"directory"`
	// Files are the files written, one CRD each, in the order written.
	Files []string `json:"files"`
}

// PrintCapture writes the files crds capture wrote into dir: their paths,
// one a line (text), or the capture document (json).
func PrintCapture(w io.Writer, format, dir string, paths []string) error {
	if canonicalFormat(format) != FormatJSON {
		PrintCaptured(w, paths)
		return nil
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(captureDocument{SchemaVersion: CRDsSchemaVersion, Directory: dir, Files: NonNil(paths)})
}

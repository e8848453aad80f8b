package fix

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kubestandup/standup/pkg/audit"
	"github.com/kubestandup/standup/pkg/render"
	"github.com/kubestandup/standup/pkg/tiers"
)

// Plan is what `audit --fix` writes, and what it leaves alone.
type Plan struct {
	// RepoRoot is the repository root File.Name is relative to, and
	// GitRoot the root of the git repository holding it, which the diff
	// names files from (render.Result).
	RepoRoot, GitRoot string
	// Files are the files to write, sorted by name.
	Files []File
	// NotFixed are the edits a finding asks for that are not made, each
	// with why, sorted by Kustomization and change.
	NotFixed []Skipped
	// Moves are the findings that need objects moved to another
	// Kustomization, not edits: --fix leaves them as the audit says them.
	Moves []audit.Finding
}

// Edits counts the edits of every file.
func (p *Plan) Edits() int {
	n := 0
	for _, f := range p.Files {
		n += len(f.Edits)
	}
	return n
}

// Diff is the unified diff of every file of the plan, each named from the
// root of the git repository, so that `git apply` there applies it.
func (p *Plan) Diff() string {
	var b strings.Builder
	for _, f := range p.Files {
		name := f.Name
		if rel, err := filepath.Rel(p.GitRoot, filepath.Join(p.RepoRoot, filepath.FromSlash(f.Name))); err == nil && filepath.IsLocal(rel) {
			name = filepath.ToSlash(rel)
		}
		b.WriteString(Diff(name, f.Before, f.After))
	}
	return b.String()
}

// File is one file and its edits.
type File struct {
	// Name is the file relative to the repository root, slash separated;
	// Path the absolute path written (symbolic links resolved).
	Name, Path string
	// Mode is the file's permissions, kept when it is written.
	Mode fs.FileMode
	// Before and After are its bytes as read and as edited.
	Before, After []byte
	// Edits are the changes made, in file order of their Kustomizations.
	Edits []Edit
}

// Edit is one change of one Kustomization, and how many places of the
// audit's findings asked for it.
type Edit struct {
	Kustomization tiers.ID
	Change        Change
	Places        int
}

// Skipped is an edit a finding asks for that Plan does not make.
type Skipped struct {
	Edit
	// File is the file that defines the Kustomization, when known.
	File string
	// Reason says why, in a clause: "its document is a template: ...".
	Reason string
}

// Options are what Plan needs besides the render and its report.
type Options struct {
	// Audit audits a render as the report was made (the same standup.yaml,
	// bootstrap and flags). Plan plays its edits on the render in memory and
	// audits it again: an edit after which the audit finds an error it did
	// not find before is not made.
	Audit func(*render.Result) (*audit.Report, error)
}

// moveCodes are the findings whose fix is to move objects.
var moveCodes = []audit.Code{audit.CodeSecondOrderSamePass, audit.CodeOriginCycle, audit.CodeMutualNeed}

// MakePlan turns the findings of report on res into edits of the files
// that define their Kustomizations: a dependsOn entry for a MISSING_EDGE,
// and a health check on the trigger or HelmRelease a provider must wait
// for (MISSING_EDGE of a second-order kind, UNGUARDED_PROVIDER). It reads
// the files and writes nothing.
func MakePlan(ctx context.Context, res *render.Result, report *audit.Report, opts Options) (*Plan, error) {
	p := &Plan{RepoRoot: res.RepoRoot, GitRoot: res.GitRoot, Files: []File{}, NotFixed: []Skipped{}, Moves: []audit.Finding{}}
	for _, f := range report.Findings {
		if slices.Contains(moveCodes, f.Code) {
			p.Moves = append(p.Moves, f)
		}
	}
	wanted, notFixed := wantedEdits(report.Hazards)
	p.NotFixed = append(p.NotFixed, notFixed...)
	files := newFileSet(res)
	var possible []Edit
	for _, e := range wanted {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if reason := files.try(e); reason != "" {
			p.NotFixed = append(p.NotFixed, Skipped{Edit: e, File: res.Definitions[e.Kustomization].File, Reason: reason})
			continue
		}
		possible = append(possible, e)
	}
	accepted, rejected, err := keepSafe(ctx, res, report, possible, opts.Audit)
	if err != nil {
		return nil, err
	}
	p.NotFixed = append(p.NotFixed, rejected...)
	var failed []Skipped
	p.Files, failed = files.final(accepted)
	p.NotFixed = append(p.NotFixed, failed...)
	slices.SortFunc(p.NotFixed, func(a, b Skipped) int {
		return cmp.Or(compareIDs(a.Kustomization, b.Kustomization), strings.Compare(a.Change.String(), b.Change.String()))
	})
	return p, nil
}

// wantedEdits are the edits the findings of hazards ask for, each once
// with the places asking, sorted: health checks first (they make no
// Kustomization wait for another), then dependsOn entries, each by
// Kustomization. A MISSING_EDGE with no provider is not fixed.
func wantedEdits(hazards []audit.Hazard) ([]Edit, []Skipped) {
	index := map[string]int{}
	var out []Edit
	var notFixed []Skipped
	add := func(e Edit) {
		key := e.Kustomization.String() + " " + e.Change.String()
		if i, ok := index[key]; ok {
			out[i].Places++
			return
		}
		index[key] = len(out)
		e.Places = 1
		out = append(out, e)
	}
	missing := map[string]int{}
	for _, h := range hazards {
		if h.Code != audit.CodeMissingEdge && h.Code != audit.CodeUnguardedProvider {
			continue
		}
		if h.Provider == nil {
			// The origin standup.yaml declares is absent: no edge to add.
			key := h.Kustomization.String() + " " + h.Object.Kind
			if i, ok := missing[key]; ok {
				notFixed[i].Places++
				continue
			}
			missing[key] = len(notFixed)
			notFixed = append(notFixed, Skipped{Edit: Edit{Kustomization: h.Kustomization, Places: 1}, File: h.File,
				Reason: fmt.Sprintf("%s has no provider to depend on (%s)", h.Object.Kind, h.Fix)})
			continue
		}
		if h.Code == audit.CodeMissingEdge {
			add(Edit{Kustomization: h.Kustomization, Change: Change{DependsOn: &Ref{Name: h.Provider.Name, Namespace: h.Provider.Namespace}}})
		}
		if g := h.Guard; g != nil {
			add(Edit{Kustomization: *h.Provider, Change: Change{HealthCheck: new(*g)}})
		}
	}
	slices.SortFunc(out, func(a, b Edit) int {
		return cmp.Or(
			cmp.Compare(fieldRank(a.Change), fieldRank(b.Change)),
			compareIDs(a.Kustomization, b.Kustomization),
			strings.Compare(a.Change.String(), b.Change.String()))
	})
	return out, notFixed
}

// fieldRank orders changes: waits for objects before dependsOn entries.
func fieldRank(c Change) int {
	if c.DependsOn != nil {
		return 1
	}
	return 0
}

func compareIDs(a, b tiers.ID) int {
	return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name), strings.Compare(a.Kind, b.Kind))
}

package kbuild

import (
	"errors"
	"fmt"
	"sync"

	fluxkustomize "github.com/fluxcd/pkg/kustomize"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	kustypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/openapi"
)

// buildMode says what a kustomize run may do to the process-wide state
// kustomize keeps: its OpenAPI schema (which a kustomization can customise)
// and the std logger (var expansion logs).
type buildMode int

const (
	// sharedBuild runs alongside other shared builds: it reads the schema,
	// parsed once, and prints nothing a warning must be named for.
	sharedBuild buildMode = iota
	// exclusiveBuild runs alone: a kustomization under it uses vars (which
	// log) or sets an OpenAPI schema (reset after it).
	exclusiveBuild
	// exactBuild runs alone through fluxcd/pkg/kustomize.Build, for a
	// kustomization that customises the schema itself (openapi, crds).
	exactBuild
)

// buildLock is held shared by shared builds and exclusively by the others.
// kustomize parses its global OpenAPI schema lazily and reads it without a
// lock (kubernetes-sigs/kustomize#3659, why fluxcd/pkg/kustomize serialises
// every build): shared builds only ever start with the schema parsed
// (schemaReady), and an exclusive build that resets it parses it again
// before letting them run.
var (
	buildLock   sync.RWMutex
	schemaReady bool // guarded by buildLock
)

// errExclusive aborts a shared build that finds, in a kustomization file it
// reads, what only an exclusive build may do; it is built again alone.
var errExclusive = errors.New("kustomization needs an exclusive build")

// runKustomize runs krusty with the options of fluxcd/pkg/kustomize.Build
// (no load restrictions, builtin plugins only, panics recovered) and
// returns what it printed. Flux's own Build re-parses the embedded OpenAPI
// schema on every call (about 150 ms); that isolation only matters when a
// kustomization customises the schema, so exactBuild selects Flux's Build
// for that case, and otherwise a schema that a nested kustomization changed
// is reset after the build.
//
// A shared build runs alongside others only when parallel is set: until a
// render has many builds to make, it leaves the schema unparsed (about
// 0.2 s and 50 MB) unless a build needs it, and builds one at a time.
func runKustomize(fs filesys.FileSystem, dir string, mode buildMode, parallel bool) (m resmap.ResMap, printed []string, err error) {
	switch mode {
	case exactBuild:
		buildLock.Lock()
		defer buildLock.Unlock()
		defer parseSchema() // Flux's Build leaves it reset
		prints := capture.begin()
		defer func() { printed = capture.end(prints) }()
		m, err = fluxkustomize.Build(fs, dir)
		return m, nil, err
	case exclusiveBuild:
		buildLock.Lock()
		defer buildLock.Unlock()
		before := openapi.GetSchemaVersion()
		defer func() {
			if openapi.GetSchemaVersion() != before {
				openapi.ResetOpenAPI()
				parseSchema()
			}
		}()
	default:
		defer lockSharedBuild(parallel)()
	}
	prints := capture.begin()
	defer func() { printed = capture.end(prints) }()
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered from kustomize build panic: %v", r)
		}
	}()
	k := krusty.MakeKustomizer(&krusty.Options{
		LoadRestrictions: kustypes.LoadRestrictionsNone,
		PluginConfig:     kustypes.DisabledPluginConfig(),
	})
	m, err = k.Run(fs, dir)
	return m, nil, err
}

// lockSharedBuild takes buildLock for a shared build, and returns its
// unlock: shared when builds run side by side, else exclusive.
func lockSharedBuild(parallel bool) (unlock func()) {
	if !parallel {
		buildLock.Lock()
		return buildLock.Unlock
	}
	lockShared()
	return buildLock.RUnlock
}

// lockListedBuild takes buildLock for a build without kustomize
// (listedBuild), shared when builds run side by side, else exclusive, and
// returns its unlock. Such a build reads kyaml's schema only to tell a
// kind's scope, from the list kyaml precomputes for the default schema,
// under kyaml's own lock, and never parses it: it needs the schema
// unchanged (no exclusive build running), not parsed. A render of plain
// directories (thousands of one-file Kustomizations) then never parses
// it at all: a tenth of such a render's CPU, and a fifth of its memory.
func lockListedBuild(parallel bool) (unlock func()) {
	if !parallel {
		buildLock.Lock()
		return buildLock.Unlock
	}
	buildLock.RLock()
	return buildLock.RUnlock
}

// lockShared takes buildLock shared, with the schema parsed.
func lockShared() {
	buildLock.RLock()
	if schemaReady {
		return
	}
	buildLock.RUnlock()
	buildLock.Lock()
	if !schemaReady {
		parseSchema()
	}
	buildLock.Unlock()
	buildLock.RLock()
}

// schemaParsed reports whether kustomize's schema is parsed already.
func schemaParsed() bool {
	buildLock.RLock()
	defer buildLock.RUnlock()
	return schemaReady
}

// parseSchema parses kustomize's built-in OpenAPI schema now, so that no
// build parses it while another reads it. buildLock must be held exclusively.
func parseSchema() {
	_ = openapi.Schema()
	schemaReady = true
}

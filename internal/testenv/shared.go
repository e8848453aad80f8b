package testenv

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

// Shared is one world that a test package's tests take turns in: started
// on first use, handed to one test at a time, and stopped by the package's
// TestMain (Stop). A world start costs seconds; a turn costs a
// kustomize-controller start and the clean-up below.
//
// Get lends the world to a test until the test ends. Each turn starts its
// own kustomize-controller (none with NoController): no queue, cache or
// discovery of an earlier test's objects survives, and a test may kill it.
// When the test ends, the world is put back to its baseline before anyone
// else may have it: the test's background helpers (operators, proxies, the
// Delay controller) stop with it, kustomize-controller is killed, and every
// object the test left (Kustomizations, sources, CRDs and their objects,
// whatever Flux applied, RBAC) is deleted and waited for, finalizers and
// all. A world that cannot be put back fails the test that left it, and a
// test that failed leaves its world behind (its own goroutines may still be
// writing): in both cases the next test gets a new world.
//
// A test in a shared world must not stop or break its control plane
// (restart the API server, expire watches, uninstall Flux, enable the audit
// log): those take a world of their own from New. Tests sharing a world
// cannot run in parallel with each other.
type Shared struct {
	Options Options

	mu     sync.Mutex
	world  *World
	base   baseline
	err    error  // a world that cannot start is not started again by each test
	holder string // the test holding the world, "" when free
}

// Get lends the package's world to tb until tb ends, starting it on first
// use. When it cannot start, tb fails if CI is set and is skipped otherwise.
func (s *Shared) Get(tb testing.TB) *World {
	tb.Helper()
	return s.get(tb, s.Options)
}

// get lends the world running the controller opts names (its control
// plane is s.Options', whatever opts say of it).
func (s *Shared) get(tb testing.TB, opts Options) *World {
	tb.Helper()
	skipShort(tb)
	w, err := s.lend(tb, opts)
	if err != nil {
		unavailable(tb, err)
		return nil
	}
	return w
}

// free reports whether no test holds s.
func (s *Shared) free() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.holder == ""
}

func (s *Shared) lend(tb testing.TB, opts Options) (*World, error) {
	tb.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.holder != "" {
		tb.Fatalf("shared test world already held by %s: tests sharing a world cannot run in parallel", s.holder)
	}
	if s.err != nil {
		return nil, s.err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if s.world == nil {
		w, base, err := startShared(ctx, s.Options.controlPlane())
		if err != nil {
			s.err = err
			return nil, err
		}
		s.world, s.base = w, base
	}
	w := s.world
	w.Controller, w.HelmController = nil, nil
	var logFrom, helmLogFrom int64
	if !opts.NoController {
		c, err := w.newController(opts)
		if err != nil {
			return nil, err // the world is fine: this test's controller is missing
		}
		w.Controller, logFrom = c, c.logSize()
		if err := c.Start(ctx); err != nil {
			s.drop()
			return nil, err
		}
		if s.Options.Helm {
			hc, err := w.newHelmController(opts)
			if err != nil {
				return nil, err
			}
			w.HelmController, helmLogFrom = hc, hc.logSize()
			if err := hc.Start(ctx); err != nil {
				s.drop()
				return nil, err
			}
		}
	}
	scope, endScope := context.WithCancel(w.ctx)
	w.scopeMu.Lock()
	w.scope = scope
	w.scopeMu.Unlock()
	if s.Options.Helm {
		w.serveCharts()
	}
	s.holder = tb.Name()
	tb.Cleanup(func() {
		if tb.Failed() && w.Controller != nil {
			tb.Logf("kustomize-controller log during this test (last 60 lines):\n%s", tail(w.Controller.logSince(logFrom), 60))
		}
		if tb.Failed() && w.HelmController != nil {
			tb.Logf("helm-controller log during this test (last 60 lines):\n%s", tail(w.HelmController.logSince(helmLogFrom), 60))
		}
		endScope()
		w.helpers.Wait()
		w.scopeMu.Lock()
		w.scope = nil
		w.scopeMu.Unlock()
		s.giveBack(tb, w)
	})
	return w, nil
}

// startShared starts a world and reads its baseline.
func startShared(ctx context.Context, opts Options) (*World, baseline, error) {
	w, err := start(ctx, opts)
	if err != nil {
		return nil, nil, err
	}
	base, err := w.snapshot(ctx)
	if err != nil {
		w.Stop()
		return nil, nil, fmt.Errorf("test world baseline: %w", err)
	}
	return w, base, nil
}

// giveBack puts w back to its baseline for the next test, or drops it.
func (s *Shared) giveBack(tb testing.TB, w *World) {
	tb.Helper()
	if w.Controller != nil {
		w.Controller.Kill()
	}
	if w.HelmController != nil {
		w.HelmController.Kill()
	}
	if tb.Failed() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.drop()
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := time.Now()
	err := w.restore(ctx, s.base)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		tb.Errorf("shared test world: this test left it changed (the next test gets a new world): %v", err)
		s.drop()
		return
	}
	tb.Logf("shared test world back at its baseline in %s", time.Since(start).Round(time.Millisecond))
	s.holder = ""
}

// drop stops the world; the next Get starts a new one. s.mu is held.
func (s *Shared) drop() {
	if s.world != nil {
		s.world.Stop()
	}
	s.world, s.base, s.holder = nil, nil, ""
}

// Stop stops the shared world if it was started.
func (s *Shared) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.world != nil {
		s.drop()
	}
}

// Pool holds a test package's shared worlds (see Shared), started on
// first use and stopped by TestMain (Stop). Worlds of the same control
// plane (APIAudit, APIServerFlags) serve every controller: each test runs
// the kustomize-controller release and flags its Options name, or none. A
// test holding one world that asks for another gets a second.
type Pool struct {
	mu     sync.Mutex
	worlds map[string][]*Shared
}

// Get lends tb a world of the pool for opts until tb ends; see Shared.
func (p *Pool) Get(tb testing.TB, opts Options) *World {
	tb.Helper()
	key := opts.planeKey()
	p.mu.Lock()
	if p.worlds == nil {
		p.worlds = map[string][]*Shared{}
	}
	var s *Shared
	for _, c := range p.worlds[key] {
		if c.free() {
			s = c
			break
		}
	}
	if s == nil {
		s = &Shared{Options: opts.controlPlane()}
		p.worlds[key] = append(p.worlds[key], s)
	}
	p.mu.Unlock()
	return s.get(tb, opts)
}

// Stop stops every world of the pool.
func (p *Pool) Stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, list := range p.worlds {
		for _, s := range list {
			s.Stop()
		}
	}
}

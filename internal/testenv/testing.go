package testenv

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubestandup/standup/internal/ciskip"
)

func fieldOwner(name string) client.FieldOwner { return client.FieldOwner(name) }

// New starts a fresh world for one test and stops it when the test ends.
// When the world cannot start, the test fails if CI is set and is skipped
// otherwise: CI must never pass without the real control plane.
func New(tb testing.TB, opts Options) *World {
	tb.Helper()
	skipShort(tb)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	w, err := Start(ctx, opts)
	if err != nil {
		unavailable(tb, err)
		return nil
	}
	tb.Cleanup(func() {
		if tb.Failed() && w.Controller != nil {
			tb.Logf("kustomize-controller log (last 60 lines):\n%s", tail(w.Controller.Log(), 60))
		}
		if tb.Failed() && w.HelmController != nil {
			tb.Logf("helm-controller log (last 60 lines):\n%s", tail(w.HelmController.Log(), 60))
		}
		if tb.Failed() && w.FluxOperator != nil {
			tb.Logf("flux-operator log (last 60 lines):\n%s", tail(w.FluxOperator.Log(), 60))
		}
		w.Stop()
	})
	return w
}

func unavailable(tb testing.TB, err error) {
	tb.Helper()
	ciskip.Skipf(tb, "test world unavailable (run scripts/testenv.sh): %v", err)
}

// skipShort skips integration tests under -short, which is how the unit
// tests alone are run; CI never passes -short.
func skipShort(tb testing.TB) {
	tb.Helper()
	if testing.Short() {
		tb.Skip("integration test: needs the test world (not run with -short)")
	}
}

// UniqueName returns prefix with a short suffix unique within this process.
func UniqueName(prefix string) string {
	uniqueMu.Lock()
	defer uniqueMu.Unlock()
	uniqueN++
	return fmt.Sprintf("%s-%d", prefix, uniqueN)
}

var (
	uniqueMu sync.Mutex
	uniqueN  int
)

func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

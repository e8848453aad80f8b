package render

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// currentMemoryLimit reads the memory limit without changing it.
func currentMemoryLimit() int64 { return debug.SetMemoryLimit(-1) }

// TestLessGCCapsTheHeapAndRestores: while a render runs, the collector's
// target is GOGC 200 under renderMemoryLimit, raised with what the heap
// keeps; when the last render ends, both are what they were.
func TestLessGCCapsTheHeapAndRestores(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	beforePercent, beforeLimit := debug.SetGCPercent(150), currentMemoryLimit()
	defer debug.SetGCPercent(beforePercent)

	restore := lessGC()
	if got := debug.SetGCPercent(renderGCPercent); got != renderGCPercent {
		t.Errorf("GOGC while rendering %d, want %d", got, renderGCPercent)
	}
	if got := currentMemoryLimit(); got != renderMemoryLimit {
		t.Errorf("memory limit while rendering %d, want %d", got, renderMemoryLimit)
	}
	// A heap that keeps more than half the limit is given twice what it
	// keeps and the headroom, once a collection has seen it.
	kept := make([][]byte, 96)
	for i := range kept {
		kept[i] = make([]byte, 1<<20)
	}
	least := int64(2*96<<20 + renderHeadroom)
	for deadline := time.Now().Add(10 * time.Second); currentMemoryLimit() < least && time.Now().Before(deadline); {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if got := currentMemoryLimit(); got < least {
		t.Errorf("memory limit %d MiB with 96 MiB kept, want at least %d MiB", got>>20, least>>20)
	}
	runtime.KeepAlive(kept)

	nested := lessGC() // a second render at once changes nothing
	nested()
	if got := currentMemoryLimit(); got <= renderMemoryLimit {
		t.Errorf("memory limit %d after a nested render ended, want the render's still", got)
	}
	restore()
	if got := debug.SetGCPercent(150); got != 150 {
		t.Errorf("GOGC after rendering %d, want 150 back", got)
	}
	if got := currentMemoryLimit(); got != beforeLimit {
		t.Errorf("memory limit after rendering %d, want %d back", got, beforeLimit)
	}
	kept = nil
	runtime.GC() // the watcher of the ended render stops without changing the limit
	time.Sleep(10 * time.Millisecond)
	if got := currentMemoryLimit(); got != beforeLimit {
		t.Errorf("memory limit %d after a collection once rendering ended, want %d", got, beforeLimit)
	}
}

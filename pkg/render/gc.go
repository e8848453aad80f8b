package render

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// renderGCPercent is the garbage collector's target while renders run.
// A render allocates much and keeps little (kustomize parses and prints
// every object several times): at Go's default of 100 the collector took a
// fifth of the time, at 400 a twentieth, for a peak heap still well under
// 200 MB at 4,000 Kustomizations.
const renderGCPercent = 200

// renderMemoryLimit is the memory a render's collector aims to stay under
// (debug.SetMemoryLimit, unless GOMEMLIMIT is set): with GOGC 200 alone,
// the heap of a render of thousands of Kustomizations reached three times
// what it keeps, and its peak RSS varied by a fifth from one run to the
// next, over 200 MB at 4,000. A render that keeps more than half the
// limit is given twice what it keeps and renderHeadroom (watchHeap):
// under the fixed limit, one of 8,000 Kustomizations collected without
// end and took twice as long; with twice what it keeps alone (the limit
// counts the runtime's own memory too), a third longer.
const (
	renderMemoryLimit = 128 << 20
	renderHeadroom    = 32 << 20
)

var (
	gcMu      sync.Mutex
	gcUsers   int
	gcPercent int
	// gcLimit is the memory limit before renders ran, -1 when GOMEMLIMIT
	// rules it; gcEpoch counts the times renders started and stopped, for
	// watchHeap to know when to stop.
	gcLimit int64
	gcEpoch uint64
)

// lessGC raises the garbage collector's target while any render runs,
// unless GOGC says otherwise, and caps the memory it lets the heap take
// (renderMemoryLimit), unless GOMEMLIMIT does; it returns the function
// that puts both back when the last render ends.
func lessGC() func() {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	gcMu.Lock()
	if gcUsers++; gcUsers == 1 {
		gcPercent = debug.SetGCPercent(renderGCPercent)
		gcLimit = -1
		if os.Getenv("GOMEMLIMIT") == "" {
			gcLimit = debug.SetMemoryLimit(renderMemoryLimit)
			gcEpoch++
			watchHeap(gcEpoch)
		}
	}
	gcMu.Unlock()
	return func() {
		gcMu.Lock()
		if gcUsers--; gcUsers == 0 {
			debug.SetGCPercent(gcPercent)
			if gcLimit >= 0 {
				debug.SetMemoryLimit(gcLimit)
				gcEpoch++
			}
		}
		gcMu.Unlock()
	}
}

// heapSentinel is garbage the collector finds at each cycle (watchHeap).
type heapSentinel struct {
	_ *heapSentinel // a pointer and size enough to be an object of its own
	_ [32]byte
}

// watchHeap sets, after each collection while the renders of epoch run,
// the memory limit to twice what the heap keeps and renderHeadroom, when
// that is above renderMemoryLimit: the limit caps the heap of a large
// render, and must not leave a larger one nothing to allocate before it
// collects again.
func watchHeap(epoch uint64) {
	runtime.SetFinalizer(&heapSentinel{}, func(*heapSentinel) {
		gcMu.Lock()
		defer gcMu.Unlock()
		if gcEpoch != epoch {
			return
		}
		live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		metrics.Read(live)
		if live[0].Value.Kind() == metrics.KindUint64 {
			debug.SetMemoryLimit(max(renderMemoryLimit, int64(live[0].Value.Uint64())*2+renderHeadroom))
		}
		watchHeap(epoch)
	})
}

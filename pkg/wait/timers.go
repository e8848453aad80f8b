package wait

import (
	"container/heap"
	"time"

	"github.com/kubestandup/standup/pkg/tiers"
)

// wakeHeap holds the times nodes asked to be looked at again, earliest
// first. Entries are never removed early: a stale one only touches a node
// that then finds nothing to do.
type wakeHeap []wakeEntry

type wakeEntry struct {
	at time.Time
	id tiers.ID
}

func (h wakeHeap) Len() int           { return len(h) }
func (h wakeHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h wakeHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *wakeHeap) Push(x any)        { *h = append(*h, x.(wakeEntry)) }
func (h *wakeHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

func (h *wakeHeap) push(id tiers.ID, at time.Time) { heap.Push(h, wakeEntry{at: at, id: id}) }

// due pops every entry at or before now.
func (h *wakeHeap) due(now time.Time) []tiers.ID {
	var out []tiers.ID
	for h.Len() > 0 && !(*h)[0].at.After(now) {
		out = append(out, heap.Pop(h).(wakeEntry).id)
	}
	return out
}

// next is the earliest pending wake, or zero.
func (h wakeHeap) next() time.Time {
	if len(h) == 0 {
		return time.Time{}
	}
	return h[0].at
}

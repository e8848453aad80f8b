package wait

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

func requested(actions []Action) []string {
	var names []string
	for _, a := range actions {
		if a.Kind == ActionReconcile {
			names = append(names, a.Node.Name)
		}
	}
	return names
}

func takenUp(o flux.Object) flux.Object {
	o.Suspended = false
	o.Ready = &flux.Condition{Status: "Unknown", Reason: "Progressing", Message: "Reconciliation in progress"}
	return o
}

// feedScene is a root with eight dependents, r0..r7, and one grandchild
// under r5 and another under r6; slow names the nodes expected slow.
func feedScene(slow ...string) (*Walker, map[string]flux.Object) {
	objs := map[string]flux.Object{"root": node("root", true)}
	for i := range 8 {
		name := fmt.Sprintf("r%d", i)
		objs[name] = node(name, true, "root")
	}
	objs["g5"] = node("g5", true, "r5")
	objs["g6"] = node("g6", true, "r6")
	opts := Options{Timeout: 10 * time.Minute}
	if len(slow) > 0 {
		opts.Slow = map[tiers.ID]string{}
		for _, s := range slow {
			opts.Slow[ksID(s)] = "Delay/" + s
		}
	}
	list := make([]flux.Object, 0, len(objs))
	for _, o := range objs {
		list = append(list, o)
	}
	return newTestWalker(opts, list...), objs
}

func TestWalkerFeedsSlowChainsFirst(t *testing.T) {
	tests := []struct {
		name string
		slow []string
		// first is what is requested the moment root is Ready, in order;
		// next what one request taken up lets through.
		first, next []string
	}{
		{
			// Without knowing which reconciles are slow, every ready
			// Kustomization is requested at once, in tier and name order.
			name:  "no hints: all at once",
			first: []string{"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7"},
		},
		{
			// A checkout of another cluster: its slow Kustomizations are
			// none of these, so nothing is held.
			name:  "hints naming no node of the graph: all at once",
			slow:  []string{"elsewhere"},
			first: []string{"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7"},
		},
		{
			// g6 is slow: r6 leads the longest expected chain, then r5
			// (a chain of two), then the rest by name, FeedAhead at a time.
			name:  "a slow grandchild pulls its parent first",
			slow:  []string{"g6"},
			first: []string{"r6", "r5", "r0", "r1"},
			next:  []string{"r2"},
		},
		{
			name:  "a slow node goes before longer quick chains",
			slow:  []string{"r3"},
			first: []string{"r3", "r5", "r6", "r0"},
			next:  []string{"r1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, objs := feedScene(tt.slow...)
			act, _, _ := w.Step(t0)
			root := only(t, act, ActionReconcile, "root")
			w.ObserveObject(readyAt(objs["root"], root.Token))
			act, evs, _ := w.Step(t0.Add(time.Second))
			if got := requested(act); !slices.Equal(got, tt.first) {
				t.Fatalf("requested %v once root was Ready, want %v", got, tt.first)
			}
			queued := 0
			for _, e := range evs {
				if e.Reason == "Queued" {
					queued++
				}
			}
			if want := 8 - len(tt.first); queued != want {
				t.Fatalf("%d Queued events, want one for each of the %d held", queued, want)
			}
			// Nothing moves while the controller has taken none up.
			act, _, _ = w.Step(t0.Add(2 * time.Second))
			none(t, act)
			if tt.next == nil {
				return
			}
			w.ObserveObject(takenUp(objs[tt.first[0]]))
			act, _, _ = w.Step(t0.Add(3 * time.Second))
			if got := requested(act); !slices.Equal(got, tt.next) {
				t.Fatalf("requested %v once %s was taken up, want %v", got, tt.first[0], tt.next)
			}
		})
	}
}

// Held nodes all go out as the controller takes requests up: g6, slow,
// goes ahead of every quick node held before it; g5, as quick as the
// rest and a tier deeper, last.
func TestWalkerFeedDrains(t *testing.T) {
	w, objs := feedScene("g6")
	act, _, _ := w.Step(t0)
	root := only(t, act, ActionReconcile, "root")
	w.ObserveObject(readyAt(objs["root"], root.Token))
	now := t0.Add(time.Second)
	act, _, _ = w.Step(now)
	tokens := map[string]string{}
	var order, outstanding []string
	for len(order) < 10 {
		for _, a := range act {
			tokens[a.Node.Name] = a.Token
			order = append(order, a.Node.Name)
			outstanding = append(outstanding, a.Node.Name)
		}
		if len(outstanding) == 0 {
			t.Fatalf("the walk stalled after requesting %v", order)
		}
		// The controller finishes the oldest request.
		first := outstanding[0]
		outstanding = outstanding[1:]
		now = now.Add(time.Second)
		w.ObserveObject(readyAt(objs[first], tokens[first]))
		act, _, _ = w.Step(now)
	}
	want := []string{"r6", "r5", "r0", "r1", "g6", "r2", "r3", "r4", "r7", "g5"}
	if !slices.Equal(order, want) {
		t.Fatalf("requested in order %v, want %v", order, want)
	}
}

// A controller that takes up none of the requests for AskAgainAfter (down,
// or every worker in a long health check) ends the holding: the rest are
// requested, so that each does not wait out the one before it.
func TestWalkerFeedStopsHoldingWhenTheControllerStalls(t *testing.T) {
	w, objs := feedScene("g6")
	act, _, _ := w.Step(t0)
	root := only(t, act, ActionReconcile, "root")
	w.ObserveObject(readyAt(objs["root"], root.Token))
	act, _, _ = w.Step(t0.Add(time.Second))
	if got := requested(act); len(got) != FeedAhead {
		t.Fatalf("requested %v, want %d", got, FeedAhead)
	}
	// Taken up at 20 s: the queue moves, nothing stalls.
	w.ObserveObject(takenUp(objs["r6"]))
	act, _, _ = w.Step(t0.Add(20 * time.Second))
	if got := requested(act); !slices.Equal(got, []string{"r2"}) {
		t.Fatalf("requested %v once r6 was taken up, want [r2]", got)
	}
	act, _, _ = w.Step(t0.Add(40 * time.Second))
	none(t, act)
	// Nothing taken up since 20 s: at 50 s the held go out, and the walk's
	// own timer gets there without an observation.
	_, _, wake := w.Step(t0.Add(45 * time.Second))
	if wake.IsZero() || wake.After(t0.Add(51*time.Second)) {
		t.Fatalf("next wake %s, want by 51 s", wake.Sub(t0))
	}
	act, _, _ = w.Step(t0.Add(51 * time.Second))
	got := requested(act)
	for _, name := range []string{"r3", "r4", "r7"} {
		if !slices.Contains(got, name) {
			t.Fatalf("requested %v after the controller stalled, want the held r3, r4 and r7 among them", got)
		}
	}
}

package rehearse

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kubestandup/standup/pkg/tiers"
)

func id(name string) tiers.ID {
	return tiers.ID{Kind: KindKustomization, Namespace: "flux-system", Name: name}
}

func ids(names ...string) []tiers.ID {
	out := make([]tiers.ID, len(names))
	for i, n := range names {
		out[i] = id(n)
	}
	return out
}

// unit is a model of round numbers: a reconcile takes 1 s, nothing else
// costs anything, two workers.
func unit() Model {
	return Model{Workers: 2, HelmWorkers: 2, PerBuild: time.Second, Proof: time.Second,
		OperatorDelay: 2 * time.Second, HelmInstall: 3 * time.Second, Horizon: time.Hour}
}

var (
	flux    = Contender{Name: "Flux alone", Requeue: 30 * time.Second}
	tuned   = Contender{Name: "Flux tuned", Requeue: 5 * time.Second}
	standup = Contender{Name: "standup", Requeue: 30 * time.Second, Standup: true}
)

func secs(d time.Duration) string { return fmt.Sprintf("%gs", d.Seconds()) }

// The simulator's timelines are pinned exactly for small graphs: a change
// in the model shows here first.
func TestSimulatePinned(t *testing.T) {
	chain := Scenario{Nodes: []Node{{ID: id("a")}, {ID: id("b"), DependsOn: ids("a")}, {ID: id("c"), DependsOn: ids("b")}}}
	diamond := Scenario{Nodes: []Node{{ID: id("top")}, {ID: id("left"), DependsOn: ids("top")}, {ID: id("right"), DependsOn: ids("top")}, {ID: id("bottom"), DependsOn: ids("left", "right")}}}
	// The seed: platform applies the CDI (trigger) and, in the same pass,
	// a StorageProfile; vms waits on platform.
	seed := Scenario{Nodes: []Node{
		{ID: id("platform"), Retry: 2 * time.Minute, Needs: []Need{{Kind: "StorageProfile.cdi.kubevirt.io", When: Runtime, Provider: id("platform")}}},
		{ID: id("vms"), DependsOn: ids("platform")},
	}}
	// A retry: app needs a CRD that crds applies, with no dependsOn on it.
	retry := Scenario{Nodes: []Node{{ID: id("crds")}, {ID: id("app"), Retry: time.Minute, Needs: []Need{{Kind: "Widget.example.com", When: Applied, Provider: id("crds")}}}}}
	// The roots come one per worker: four of them need two rounds of two.
	var fan Scenario
	for i := range 4 {
		fan.Nodes = append(fan.Nodes, Node{ID: id(fmt.Sprintf("n%d", i))})
	}
	// The app's child exists only once its parent applied.
	nested := Scenario{Nodes: []Node{{ID: id("root")}, {ID: id("child"), AppliedBy: ptr(id("root"))}}}
	tests := []struct {
		name     string
		s        Scenario
		c        Contender
		allReady string // "never" for a deadlock
		path     string
		stalls   string // cause node from-to, the longest first
	}{
		{"chain, Flux alone", chain, flux, "61s", "a b c", "requeue flux-system/c 0s-60s, requeue flux-system/b 0s-30s"},
		{"chain, Flux tuned", chain, tuned, "11s", "a b c", "requeue flux-system/c 0s-10s, requeue flux-system/b 0s-5s"},
		{"chain, standup", chain, standup, "3s", "a b c", ""},
		{"diamond, standup", diamond, standup, "3s", "top left bottom", ""},
		// bottom's dependencies turn Ready the moment it looks (31 s), one
		// after the other: it looks between the two, and requeues.
		{"diamond, Flux alone", diamond, flux, "62s", "top left bottom", "requeue flux-system/bottom 0s-61s, requeue flux-system/left 0s-30s, requeue flux-system/right 0s-30s, queue flux-system/bottom 30s-31s"},
		{"seed, Flux alone", seed, flux, "never", "", "requeue flux-system/vms 0s-3600s, retry flux-system/platform 1s-3509s"},
		{"seed, standup", seed, standup, "4s", "platform vms", ""},
		{"retry, Flux alone", retry, flux, "62s", "crds app", "retry flux-system/app 1s-61s"},
		{"retry, standup", retry, standup, "2s", "crds app", ""},
		{"fan-out on 2 workers", fan, flux, "2s", "n2", "queue flux-system/n2 0s-1s, queue flux-system/n3 0s-1s"},
		{"nested, standup", nested, standup, "2s", "root child", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Simulate(tt.s, tt.c, unit())
			got := secs(r.AllReady)
			if !r.Converged {
				got = "never"
			}
			if got != tt.allReady {
				t.Errorf("all Ready at %s, want %s", got, tt.allReady)
			}
			var path []string
			if r.Converged {
				for _, p := range r.CriticalPath {
					path = append(path, p.Name)
				}
			}
			if strings.Join(path, " ") != tt.path {
				t.Errorf("critical path %v, want %s", path, tt.path)
			}
			var stalls []string
			for _, s := range r.Stalls {
				stalls = append(stalls, fmt.Sprintf("%s %s %s-%s", s.Cause, s.Node.NamespacedName(), secs(s.From), secs(s.To)))
			}
			if strings.Join(stalls, ", ") != tt.stalls {
				t.Errorf("stalls %s\n want %s", strings.Join(stalls, ", "), tt.stalls)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// A deadlock under Flux alone never converges, and says why; standup
// repairs it by pre-applying the CRD.
func TestSimulateDeadlock(t *testing.T) {
	seed := Scenario{Nodes: []Node{
		{ID: id("platform"), Retry: 2 * time.Minute, Needs: []Need{{Kind: "StorageProfile.cdi.kubevirt.io", When: Runtime, Provider: id("platform")}}},
		{ID: id("vms"), DependsOn: ids("platform")},
	}}
	r := Simulate(seed, flux, unit())
	if r.Converged || len(r.Never) != 2 || !strings.Contains(r.Never[0].Why, "cold-start deadlock") || !strings.Contains(r.Never[1].Why, "waits on flux-system/platform") {
		t.Errorf("Flux alone: converged %v, never %+v", r.Converged, r.Never)
	}
	s := Simulate(seed, standup, unit())
	if !s.Converged || len(s.Repaired) != 1 || !strings.Contains(s.Repaired[0], "StorageProfile") {
		t.Errorf("standup: converged %v, repaired %v", s.Converged, s.Repaired)
	}
}

// TestSimulateReaction: standup's reaction delays each dependent's
// reconcile by Model.Reaction after its last dependency turns Ready, and
// nothing else: a chain of three under standup takes 3 s of reconciles
// plus two reactions, and so does a diamond whose bottom waits on the
// slower of its two sides (its reaction counts from that one, not from
// the first); Flux alone, whose requeue carries the chain, is unchanged.
func TestSimulateReaction(t *testing.T) {
	chain := Scenario{Nodes: []Node{{ID: id("a")}, {ID: id("b"), DependsOn: ids("a")}, {ID: id("c"), DependsOn: ids("b")}}}
	m := unit()
	m.Reaction = 250 * time.Millisecond
	for _, tt := range []struct {
		c    Contender
		want time.Duration
	}{{standup, 3500 * time.Millisecond}, {flux, 61 * time.Second}} {
		if r := Simulate(chain, tt.c, m); !r.Converged || r.AllReady != tt.want {
			t.Errorf("%s: all Ready at %s (converged %v), want %s", tt.c.Name, r.AllReady, r.Converged, tt.want)
		}
	}
	diamond := Scenario{Nodes: []Node{{ID: id("top")}, {ID: id("fast"), DependsOn: ids("top")},
		{ID: id("slow"), DependsOn: ids("top"), Duration: 1100 * time.Millisecond}, {ID: id("bottom"), DependsOn: ids("fast", "slow")}}}
	// top 1 s, reaction, fast 1 s (2.25 s) and slow 1.1 s (2.35 s), the
	// reaction to slow, bottom 1 s: 3.6 s (3.5 s, were fast's reaction
	// taken, which fires once both are Ready).
	if r := Simulate(diamond, standup, m); !r.Converged || r.AllReady != 3600*time.Millisecond {
		t.Errorf("diamond: all Ready at %s (converged %v), want 3.6s", r.AllReady, r.Converged)
	}
}

// TestSimulateSuspendedStart: on a graph that starts suspended (the
// benchmarks' cold state), standup resumes each node with its request
// once its dependencies are Ready, so no worker spends a dependency check
// on it; taken up from the start (a cold start from git), a dependent the
// controller reaches before its dependency checks, requeues, and holds
// the one worker when it comes back. And a request that arrives while a
// check runs is not lost: the controller runs the node again after it.
func TestSimulateSuspendedStart(t *testing.T) {
	m := unit()
	m.Workers, m.DependencyCheck = 1, time.Second
	fast := Contender{Name: "standup", Requeue: 2 * time.Second, Standup: true}
	// Listed last first: the controller's queue takes c, then b, then a.
	chain := Scenario{Nodes: []Node{{ID: id("c"), DependsOn: ids("b")}, {ID: id("b"), DependsOn: ids("a")}, {ID: id("a")}}}
	suspended := chain
	suspended.Suspended = true
	for _, tt := range []struct {
		s      Scenario
		c      Contender
		want   string
		stalls string
	}{
		// a 0-1 s, b 1-2 s, c 2-3 s: standup resumes each as it may run.
		{suspended, fast, "3s", ""},
		// c checks 0-1 s, b 1-2 s, a runs 2-3 s; at 3 s c's requeue comes
		// first and checks again (3-4 s) while b, asked for, waits for the
		// worker; b 4-5 s; c, asked for again, 5-6 s. (b's two waits for
		// the worker, 0-1 s and 3-4 s, are one stall: they are closer than
		// a build and a check.)
		{chain, fast, "6s", "queue flux-system/b 0s-4s, queue flux-system/a 0s-2s, requeue flux-system/c 1s-3s"},
		// Flux alone resumes them all at once, suspended or not: c and b
		// check, a runs 2-3 s; c checks again at 31 s, b runs 32-33 s, c
		// 62-63 s.
		{suspended, flux, "63s", ""},
		{chain, flux, "63s", ""},
	} {
		t.Run(fmt.Sprintf("%s, requeue %s, suspended %v", tt.c.Name, tt.c.Requeue, tt.s.Suspended), func(t *testing.T) {
			r := Simulate(tt.s, tt.c, m)
			if got := secs(r.AllReady); !r.Converged || got != tt.want {
				t.Errorf("all Ready at %s (converged %v), want %s", got, r.Converged, tt.want)
			}
			if tt.c.Standup {
				var stalls []string
				for _, s := range r.Stalls {
					stalls = append(stalls, fmt.Sprintf("%s %s %s-%s", s.Cause, s.Node.NamespacedName(), secs(s.From), secs(s.To)))
				}
				if strings.Join(stalls, ", ") != tt.stalls {
					t.Errorf("stalls %s\n want %s", strings.Join(stalls, ", "), tt.stalls)
				}
			}
		})
	}
}

package tiers

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// MaxReportedCycles bounds how many elementary cycles a CycleError lists.
// A dense strongly connected component can hold exponentially many cycles;
// past this bound CycleError.Truncated is set, and every strongly connected
// component is still represented by at least one cycle.
const MaxReportedCycles = 100

// MissingDependency is one dependsOn edge whose target is not in the graph.
type MissingDependency struct {
	// Dependent is the node that declares the dependency.
	Dependent ID `json:"dependent"`
	// Missing is the object it depends on, which is not a node of the graph.
	Missing ID `json:"missing"`
}

// String renders the edge as a sentence naming the dependent first.
func (m MissingDependency) String() string {
	return fmt.Sprintf("%s depends on %s, which does not exist", m.Dependent, m.Missing)
}

// Cycle is a closed dependency path: each node depends on the next, and the
// last element repeats the first. The first node is the least of the cycle by
// ID.Less, so a cycle always prints the same way.
type Cycle []ID

// String renders the path as "ns/a -> ns/b -> ns/a". Nodes are named
// namespace/name when the whole cycle has one kind, Kind/namespace/name
// otherwise.
func (c Cycle) String() string {
	oneKind := true
	for _, id := range c {
		if id.Kind != c[0].Kind {
			oneKind = false
			break
		}
	}
	parts := make([]string, len(c))
	for i, id := range c {
		if oneKind {
			parts[i] = id.NamespacedName()
		} else {
			parts[i] = id.String()
		}
	}
	return strings.Join(parts, " -> ")
}

// CycleError reports that the graph has circular dependencies, so no tier
// order exists.
type CycleError struct {
	// Cycles lists the elementary cycles in a deterministic order.
	Cycles []Cycle
	// Truncated is set when more than MaxReportedCycles cycles exist and
	// only some of them are listed.
	Truncated bool
}

// Error renders every listed cycle on one line.
func (e *CycleError) Error() string {
	paths := make([]string, len(e.Cycles))
	for i, c := range e.Cycles {
		paths[i] = c.String()
	}
	msg := "circular dependency detected: "
	if len(paths) > 1 {
		msg = strconv.Itoa(len(paths)) + " circular dependencies detected: "
	}
	msg += strings.Join(paths, "; ")
	if e.Truncated {
		msg += "; more cycles exist and are not listed"
	}
	return msg
}

// MissingError reports dependencies on objects that are not in the graph.
type MissingError struct {
	// Missing lists each dangling edge, sorted by dependent, then missing ID.
	Missing []MissingDependency
}

// Error renders every dangling edge on one line.
func (e *MissingError) Error() string {
	parts := make([]string, len(e.Missing))
	for i, m := range e.Missing {
		parts[i] = m.String()
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return strconv.Itoa(len(parts)) + " missing dependencies: " + strings.Join(parts, "; ")
}

// Absent returns the distinct missing objects, sorted by ID.Less.
func (e *MissingError) Absent() []ID {
	return absent(e.Missing)
}

func absent(missing []MissingDependency) []ID {
	ids := make([]ID, 0, len(missing))
	for _, m := range missing {
		ids = append(ids, m.Missing)
	}
	slices.SortFunc(ids, compareID)
	return slices.Compact(ids)
}

// DuplicateError reports node IDs given more than once to Build.
type DuplicateError struct {
	// IDs lists each duplicated ID once, sorted by ID.Less.
	IDs []ID
}

// Error names every duplicated ID.
func (e *DuplicateError) Error() string {
	parts := make([]string, len(e.IDs))
	for i, id := range e.IDs {
		parts[i] = id.String()
	}
	if len(parts) == 1 {
		return "duplicate node " + parts[0]
	}
	return "duplicate nodes " + strings.Join(parts, ", ")
}

// compareID is the three-way form of ID.Less.
func compareID(a, b ID) int {
	if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
		return c
	}
	if c := strings.Compare(a.Name, b.Name); c != 0 {
		return c
	}
	return strings.Compare(a.Kind, b.Kind)
}

func compareMissing(a, b MissingDependency) int {
	if c := compareID(a.Dependent, b.Dependent); c != 0 {
		return c
	}
	return compareID(a.Missing, b.Missing)
}

package bench

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/kubestandup/standup/pkg/wait"
)

// ReadEvents decodes the NDJSON events `standup resume -o json` prints.
func ReadEvents(ndjson string) ([]wait.Event, error) {
	var out []wait.Event
	sc := bufio.NewScanner(strings.NewReader(ndjson))
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for sc.Scan() {
		var e wait.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("standup event %q is not JSON: %w", sc.Text(), err)
		}
		out = append(out, e)
	}
	return out, sc.Err()
}

// SummaryOf returns the summary that closes the walk.
func SummaryOf(events []wait.Event) (wait.Summary, error) {
	for i := len(events) - 1; i >= 0; i-- {
		if events[i].Type == wait.EventSummary && events[i].Summary != nil {
			return *events[i].Summary, nil
		}
	}
	return wait.Summary{}, errors.New("standup printed no summary event")
}

// WritesPerNode counts the mutations standup made on behalf of each
// Kustomization ("namespace/name"): its reconcile requests (resume
// included) and any CRD pre-apply done for it.
func WritesPerNode(events []wait.Event) map[string]int {
	out := map[string]int{}
	for _, e := range events {
		if e.Type == wait.EventAction && e.Node != nil {
			out[e.Node.NamespacedName()]++
		}
	}
	return out
}

// PatchesPerNode counts only the writes to each Kustomization itself: its
// reconcile requests (resume included), not the CRDs pre-applied for it.
func PatchesPerNode(events []wait.Event) map[string]int {
	out := map[string]int{}
	for _, e := range events {
		if e.Type == wait.EventAction && e.Node != nil && e.Action == string(wait.ActionReconcile) {
			out[e.Node.NamespacedName()]++
		}
	}
	return out
}

// MostWrites returns the node with the most writes and their number; ties
// go to the first name in order.
func MostWrites(perNode map[string]int) (string, int) {
	best, most := "", 0
	for node, n := range perNode {
		if n > most || (n == most && node < best) {
			best, most = node, n
		}
	}
	return best, most
}

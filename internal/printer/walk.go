package printer

import (
	"encoding/json"
	"io"
	"os"
	"sync"
	"time"

	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

// WalkPrinter prints a walk's events as they come and its summary at the end.
type WalkPrinter interface {
	Event(wait.Event)
	Close(wait.Summary)
}

// WalkFormats returns the formats NewWalkPrinter accepts, default first.
func WalkFormats() []string { return []string{FormatText, FormatJSON} }

// WalkOptions choose a walk printer.
type WalkOptions struct {
	// Format is FormatText or FormatJSON.
	Format string
	// Quiet prints nothing but the summary.
	Quiet bool
	// NoColor is --no-color.
	NoColor bool
	// Explained are the nodes whose deadlock diagnosis the command printed
	// before the walk (crds' report): a proof of it then names it rather
	// than print it again.
	Explained []tiers.ID
}

// NewWalkPrinter returns the printer for a walk: NDJSON events on out (json),
// else progress on errOut: a live view on a terminal large enough for it
// (liveFits), plain timestamped lines otherwise (CI logs, a small terminal),
// only the summary with Quiet. Close the printer to stop the live view.
func NewWalkPrinter(out, errOut io.Writer, o WalkOptions) WalkPrinter {
	switch {
	case o.Format == FormatJSON:
		return &jsonWalk{enc: json.NewEncoder(out)}
	case o.Quiet:
		return newPlainWalk(io.Discard, errOut, NewStyles(errOut, false), o.Explained, plainClock{})
	case IsTerminal(errOut):
		st := NewStyles(errOut, UseColor(errOut, o.NoColor))
		if live, ok := openLiveWalk(errOut.(*os.File), st, o.Explained); ok {
			return live
		}
		return openPlainWalk(errOut, st, o.Explained)
	default:
		return openPlainWalk(errOut, NewStyles(errOut, false), o.Explained)
	}
}

// WalkSchemaVersion is the schemaVersion of every line resume -o json
// writes, events and plan steps alike (docs/output.md). It changes only
// when a field is removed or changes meaning; new fields and new values of
// type, phase, action and reason may appear without a change.
const WalkSchemaVersion = 1

// walkRecord is one NDJSON line of a walk: the event, after the schema
// version. Every line carries the version, not a first header line, so
// that a consumer that keeps only some lines (jq 'select(.type == "node")',
// grep, tail -f joined late) still knows what it reads.
type walkRecord struct {
	SchemaVersion int `json:"schemaVersion"`
	wait.Event
}

// jsonWalk writes one JSON object per event, the summary as the last one.
type jsonWalk struct {
	mu  sync.Mutex
	enc *json.Encoder
}

func (p *jsonWalk) Event(e wait.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	_ = p.enc.Encode(walkRecord{SchemaVersion: WalkSchemaVersion, Event: e})
}

func (p *jsonWalk) Close(s wait.Summary) {
	p.Event(wait.Event{Time: time.Now(), Type: wait.EventSummary, Summary: &s})
}

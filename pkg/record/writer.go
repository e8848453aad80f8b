package record

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
	"time"

	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

// DefaultLimit bounds a record's size: far above what a walk of thousands
// of Kustomizations writes, far below what fills a disk.
const DefaultLimit = 64 << 20

// Writer writes a record as a walk goes, one line at a time. It is safe
// for concurrent use: the walk's events and the client's requests come
// from different goroutines.
type Writer struct {
	mu      sync.Mutex
	out     io.Writer
	file    *os.File
	limit   int64
	size    int64
	dropped Dropped
	err     error
	closed  bool
}

// Create creates the record file path, which must not exist: a record is
// evidence, and standup overwrites none. limit bounds its size (0:
// DefaultLimit).
func Create(path string, limit int64) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("--record %s: the file exists; name a new one (standup overwrites no record)", path)
	}
	if err != nil {
		return nil, fmt.Errorf("--record %s: %w", path, err)
	}
	w := NewWriter(f, limit)
	w.file = f
	return w, nil
}

// NewWriter writes a record to out.
func NewWriter(out io.Writer, limit int64) *Writer {
	if limit <= 0 {
		limit = DefaultLimit
	}
	return &Writer{out: out, limit: limit, dropped: Dropped{Lines: map[wait.EventType]int{}}}
}

// Limit is the writer's size limit.
func (w *Writer) Limit() int64 { return w.limit }

// Header writes the header line.
func (w *Writer) Header(h Header) {
	h.Limit = w.limit
	w.write(Line{Event: wait.Event{Time: h.Started, Type: TypeHeader}, Header: &h})
}

// Graph writes the graph line.
func (w *Writer) Graph(g *tiers.Graph) {
	w.write(Line{Event: wait.Event{Time: time.Now(), Type: TypeGraph}, Graph: GraphOf(g)})
}

// Event writes a walk event, as -o json would.
func (w *Writer) Event(e wait.Event) { w.write(Line{Event: e}) }

// Request writes an API request and its outcome.
func (w *Writer) Request(at time.Time, r Request) {
	w.write(Line{Event: wait.Event{Time: at, Type: TypeRequest}, Request: &r})
}

// essential reports whether a line is kept until the limit itself: what
// the record is for (what standup changed and decided, and how the walk
// ended). The rest (a node's progress, a read) stops at three quarters
// of the limit, so that the essential lines always have room.
func essential(l Line) bool {
	switch l.Type {
	case TypeHeader, TypeGraph, wait.EventAction, wait.EventDiagnosis, wait.EventSummary:
		return true
	case TypeRequest:
		return l.Request.Mutation()
	}
	return false
}

func (w *Writer) write(l Line) {
	l.SchemaVersion = SchemaVersion
	data, err := json.Marshal(l)
	if err != nil {
		w.fail(err)
		return
	}
	data = append(data, '\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || w.err != nil {
		return
	}
	room := w.limit * 3 / 4
	if essential(l) {
		room = w.limit
	}
	if l.Type == wait.EventSummary {
		room = w.limit + int64(len(data)) // the summary always goes in
	}
	if w.size+int64(len(data)) > room {
		w.dropped.Lines[l.Type]++
		w.dropped.Bytes += int64(len(data))
		return
	}
	// One write per line, straight to the file: a run killed now keeps
	// every line before this one, whole.
	if _, err := w.out.Write(data); err != nil {
		w.err = fmt.Errorf("record: %w", err)
		return
	}
	w.size += int64(len(data))
}

func (w *Writer) fail(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = fmt.Errorf("record: %w", err)
	}
}

// Close writes what was dropped, if anything, and closes the file. It
// returns the first error the record met: a record that could not be
// written is reported, never silently short.
func (w *Writer) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return w.err
	}
	dropped := len(w.dropped.Lines) > 0
	w.mu.Unlock()
	if dropped {
		d := w.dropped
		data, _ := json.Marshal(Line{SchemaVersion: SchemaVersion, Event: wait.Event{Time: time.Now(), Type: TypeDropped}, Dropped: &d})
		w.mu.Lock()
		if w.err == nil {
			if _, err := w.out.Write(append(data, '\n')); err != nil {
				w.err = fmt.Errorf("record: %w", err)
			}
		}
		w.mu.Unlock()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	if w.file != nil {
		if err := w.file.Close(); err != nil && w.err == nil {
			w.err = fmt.Errorf("record: %w", err)
		}
	}
	return w.err
}

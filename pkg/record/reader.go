package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/kubestandup/standup/pkg/wait"
)

// MaxLine bounds one line of a record a reader takes: a graph line of
// tens of thousands of nodes fits.
const MaxLine = 32 << 20

// Record is a record as read.
type Record struct {
	Header  *Header
	Graph   *Graph
	Events  []wait.Event
	Request []TimedRequest
	Dropped *Dropped
	// Summary is the walk's summary; nil when the run was cut off first.
	Summary *wait.Summary
	// Truncated says the record ends in a partial line (a run killed while
	// it wrote): that line is left out.
	Truncated bool
}

// TimedRequest is a request line with its time.
type TimedRequest struct {
	Request
	At time.Time `json:"at"`
}

// Read reads a record. A last line cut short is left out (Truncated); any
// other line that does not parse is an error naming its line number. A
// line of an unknown type is skipped: newer standups may add some.
func Read(r io.Reader, name string) (*Record, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	rec := &Record{}
	for n := 1; ; n++ {
		line, err := readLine(br)
		if errors.Is(err, io.EOF) && len(line) == 0 {
			break
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: line %d: %w", name, n, err)
		}
		complete := err == nil
		if len(bytes.TrimSpace(line)) == 0 {
			if !complete {
				break
			}
			continue
		}
		var l Line
		if uerr := json.Unmarshal(line, &l); uerr != nil {
			if !complete {
				rec.Truncated = true
				break
			}
			return nil, fmt.Errorf("%s: line %d: not a record line: %v", name, n, uerr)
		}
		if l.SchemaVersion != SchemaVersion {
			return nil, fmt.Errorf("%s: line %d: schemaVersion %d, this standup reads %d", name, n, l.SchemaVersion, SchemaVersion)
		}
		rec.add(l)
		if !complete {
			break
		}
	}
	if rec.Header == nil {
		return nil, fmt.Errorf("%s: no header line: not a standup record (write one with resume --record FILE)", name)
	}
	return rec, nil
}

func (rec *Record) add(l Line) {
	switch l.Type {
	case TypeHeader:
		rec.Header = l.Header
	case TypeGraph:
		rec.Graph = l.Graph
	case TypeRequest:
		if l.Request != nil {
			rec.Request = append(rec.Request, TimedRequest{Request: *l.Request, At: l.Time})
		}
	case TypeDropped:
		rec.Dropped = l.Dropped
	case wait.EventSummary:
		rec.Summary = l.Summary
		rec.Events = append(rec.Events, l.Event)
	case wait.EventNode, wait.EventAction, wait.EventDiagnosis:
		rec.Events = append(rec.Events, l.Event)
	}
}

// readLine reads one line, bounded by MaxLine; io.EOF with a non-empty
// line means the last line had no newline.
func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > MaxLine {
			return nil, fmt.Errorf("longer than %d bytes", MaxLine)
		}
		switch {
		case err == nil:
			return buf, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return buf, err
		}
	}
}

package record

import (
	"time"

	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

// SchemaVersion is the schemaVersion of every record line: the walk's
// (printer.WalkSchemaVersion, which a test holds equal), since a record is
// the walk's NDJSON with more line types.
const SchemaVersion = 1

// The line types a record adds to the walk's (wait.EventType).
const (
	// TypeHeader opens a record: the command and the versions.
	TypeHeader wait.EventType = "header"
	// TypeGraph is the graph when the walk began.
	TypeGraph wait.EventType = "graph"
	// TypeRequest is one API request standup made, and its outcome.
	TypeRequest wait.EventType = "request"
	// TypeDropped closes a record that reached its size limit: what it
	// left out.
	TypeDropped wait.EventType = "dropped"
)

// Line is one line of a record: a walk event (type node, action,
// diagnosis, summary), or one of the record's own (header, graph, request,
// dropped), each with its field set.
type Line struct {
	SchemaVersion int `json:"schemaVersion"`
	wait.Event
	Header  *Header  `json:"header,omitempty"`
	Graph   *Graph   `json:"graph,omitempty"`
	Request *Request `json:"request,omitempty"`
	Dropped *Dropped `json:"dropped,omitempty"`
}

// Header is what a post-mortem needs to know of the run itself.
type Header struct {
	// Command is the command line, as typed (os.Args).
	Command []string `json:"command"`
	// Standup is standup's version.
	Standup string `json:"standup"`
	// Server is the API server's address.
	Server string `json:"server,omitempty"`
	// FluxAPIs are the Flux API versions standup reads, by kind.
	FluxAPIs map[string]string `json:"fluxAPIs,omitempty"`
	// Controller is kustomize-controller's image, where standup may read
	// its Deployment; empty otherwise.
	Controller string `json:"controller,omitempty"`
	// Started is when the command began.
	Started time.Time `json:"started"`
	// Limit is the record's size limit in bytes.
	Limit int64 `json:"limit"`
}

// Graph is the walk's graph when it began: every node with its
// dependencies, and the tiers.
type Graph struct {
	Nodes []tiers.Node `json:"nodes"`
	Tiers [][]tiers.ID `json:"tiers"`
}

// GraphOf snapshots g.
func GraphOf(g *tiers.Graph) *Graph {
	return &Graph{Nodes: g.Nodes(), Tiers: g.Tiers()}
}

// Request is one API request and its outcome.
type Request struct {
	// Verb and Resource are as the request counter names them (get, list,
	// watch, create, patch, ...; kustomizations.kustomize.toolkit.fluxcd.io).
	Verb     string `json:"verb"`
	Resource string `json:"resource"`
	// Path is the request's URL path: the object's namespace and name, no
	// query, no body.
	Path string `json:"path"`
	// Code is the HTTP status; 0 when no response came (Error says why).
	Code     int           `json:"code"`
	Duration wait.Duration `json:"duration"`
	Error    string        `json:"error,omitempty"`
}

// Mutation reports whether the request may change the cluster.
func (r Request) Mutation() bool {
	switch r.Verb {
	case "create", "update", "patch", "delete", "deletecollection":
		return true
	}
	return false
}

// Dropped counts the lines a record left out at its size limit, by type.
type Dropped struct {
	Lines map[wait.EventType]int `json:"lines"`
	// Bytes is what they would have taken.
	Bytes int64 `json:"bytes"`
}

package bench

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kubestandup/standup/pkg/kube"
)

// requestsPrefix starts the line `standup -v` prints on stderr at the end
// of a walk: "API requests: list kustomizations.kustomize.toolkit.fluxcd.io=2, ...".
const requestsPrefix = "API requests: "

// Requests counts the API requests one standup run made, by verb and
// resource, as its request counter classified them.
type Requests map[kube.Request]int

// ParseRequests finds the last "API requests: " line in stderr and reads
// its "verb resource=N" pairs.
func ParseRequests(stderr string) (Requests, error) {
	line, found := "", false
	for l := range strings.Lines(stderr) {
		if rest, ok := strings.CutPrefix(strings.TrimLeft(l, " \t"), requestsPrefix); ok {
			line, found = strings.TrimSpace(rest), true
		}
	}
	if !found {
		return nil, fmt.Errorf("no %q line in standup's stderr (was -v given?)", strings.TrimSpace(requestsPrefix))
	}
	out := Requests{}
	for pair := range strings.SplitSeq(line, ", ") {
		if pair == "" {
			continue
		}
		key, count, ok := strings.Cut(pair, "=")
		verb, resource, ok2 := strings.Cut(key, " ")
		n, err := strconv.Atoi(count)
		if !ok || !ok2 || err != nil {
			return nil, fmt.Errorf("API requests: bad pair %q", pair)
		}
		out[kube.Request{Verb: verb, Resource: resource}] += n
	}
	return out, nil
}

// Discovery reports whether r is an API discovery request (/api, /apis,
// or a group version), not a request on a resource.
func Discovery(r kube.Request) bool {
	return r.Resource == "" || strings.HasPrefix(r.Resource, "/") || strings.HasPrefix(r.Resource, ".")
}

// ByVerb totals the requests on resources by verb; discovery requests are
// counted under "discovery".
func (r Requests) ByVerb() map[string]int {
	out := map[string]int{}
	for req, n := range r {
		if Discovery(req) {
			out["discovery"] += n
			continue
		}
		out[req.Verb] += n
	}
	return out
}

// writeVerbs are the verbs that change the cluster.
var writeVerbs = []string{"create", "update", "patch", "delete", "deletecollection"}

// eventsResource is where standup posts its Kubernetes Events.
const eventsResource = "events.events.k8s.io"

// Writes is the number of requests that changed the cluster's objects:
// standup's Events, its account of those changes, are counted apart
// (EventWrites), so that the writes per Kustomization stay the walk's own.
func (r Requests) Writes() int {
	n := 0
	for req, c := range r {
		if !Discovery(req) && req.Resource != eventsResource && slices.Contains(writeVerbs, req.Verb) {
			n += c
		}
	}
	return n
}

// EventWrites is the number of requests that posted Events.
func (r Requests) EventWrites() int {
	n := 0
	for req, c := range r {
		if req.Resource == eventsResource && slices.Contains(writeVerbs, req.Verb) {
			n += c
		}
	}
	return n
}

// Gets is the number of single-object reads on resources.
func (r Requests) Gets() int { return r.ByVerb()["get"] }

// ExtraReads counts the reads beyond what a watch-driven walk needs: more
// than one list or one watch of a resource, and gets of a resource beyond
// the writes to it (a read just before a write, as a safe CRD pre-apply
// makes, belongs to that write; any other get is a poll). Discovery is not
// counted.
func (r Requests) ExtraReads() int { return r.ExtraReadsWithin(0) }

// watchRenewal is client-go's shortest watch: a reflector asks the API
// server to end each watch after a random 5 to 10 minutes
// (defaultMinWatchTimeout), then watches again from where it was, with no
// list.
const watchRenewal = 5 * time.Minute

// ExtraReadsWithin is ExtraReads for a walk that took elapsed: each
// resource's watch may also have been renewed once per watchRenewal, since
// a renewal continues the same watch and reads nothing twice.
func (r Requests) ExtraReadsWithin(elapsed time.Duration) int {
	watches := 1 + int(elapsed/watchRenewal)
	type perResource struct{ list, watch, get, write int }
	by := map[string]*perResource{}
	for req, n := range r {
		if Discovery(req) {
			continue
		}
		p := by[req.Resource]
		if p == nil {
			p = &perResource{}
			by[req.Resource] = p
		}
		switch {
		case req.Verb == "list":
			p.list += n
		case req.Verb == "watch":
			p.watch += n
		case req.Verb == "get":
			p.get += n
		case slices.Contains(writeVerbs, req.Verb):
			p.write += n
		}
	}
	extra := 0
	for _, p := range by {
		extra += max(0, p.list-1) + max(0, p.watch-watches) + max(0, p.get-p.write)
	}
	return extra
}

// String renders the counts by verb, sorted, e.g. "list=4 patch=10 watch=3".
func (r Requests) String() string {
	by := r.ByVerb()
	parts := make([]string, 0, len(by))
	for _, verb := range slices.Sorted(maps.Keys(by)) {
		parts = append(parts, fmt.Sprintf("%s=%d", verb, by[verb]))
	}
	return strings.Join(parts, " ")
}

// Detail renders every non-discovery "verb resource=N", sorted.
func (r Requests) Detail() string {
	var parts []string
	for req, n := range r {
		if !Discovery(req) {
			parts = append(parts, fmt.Sprintf("%s=%d", req, n))
		}
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}

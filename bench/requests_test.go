package bench

import (
	"testing"
	"time"

	"github.com/kubestandup/standup/pkg/kube"
)

// stderrOfRun is what `standup resume -v` printed at the end of a walk:
// klog lines, then the request counts.
const stderrOfRun = `I1129 16:40:01.100000  4242 loop.go:88] "informer started"
API requests: get /api=1, list .cdi.kubevirt.io=1, list customresourcedefinitions.apiextensions.k8s.io=1, list gitrepositories.source.toolkit.fluxcd.io=1, list kustomizations.kustomize.toolkit.fluxcd.io=2, patch kustomizations.kustomize.toolkit.fluxcd.io=10, watch customresourcedefinitions.apiextensions.k8s.io=1, watch gitrepositories.source.toolkit.fluxcd.io=1, watch kustomizations.kustomize.toolkit.fluxcd.io=1, get gitrepositories.source.toolkit.fluxcd.io=2, create customresourcedefinitions.apiextensions.k8s.io=1
`

func TestParseRequests(t *testing.T) {
	tests := []struct {
		name    string
		stderr  string
		byVerb  string
		writes  int
		events  int
		gets    int
		extra   int
		detail  string
		wantErr string
	}{
		{
			name:   "a walk",
			stderr: stderrOfRun,
			byVerb: "create=1 discovery=2 get=2 list=4 patch=10 watch=3",
			writes: 11, gets: 2, extra: 3, // a second list of Kustomizations; two gets of a source never written
			detail: "create customresourcedefinitions.apiextensions.k8s.io=1, get gitrepositories.source.toolkit.fluxcd.io=2, " +
				"list customresourcedefinitions.apiextensions.k8s.io=1, list gitrepositories.source.toolkit.fluxcd.io=1, " +
				"list kustomizations.kustomize.toolkit.fluxcd.io=2, patch kustomizations.kustomize.toolkit.fluxcd.io=10, " +
				"watch customresourcedefinitions.apiextensions.k8s.io=1, watch gitrepositories.source.toolkit.fluxcd.io=1, " +
				"watch kustomizations.kustomize.toolkit.fluxcd.io=1",
		},
		{
			name:   "the last line wins",
			stderr: "API requests: patch a=9\nAPI requests: list a=1\n",
			byVerb: "list=1", writes: 0, gets: 0, detail: "list a=1",
		},
		{
			name:   "a get before each write is not a poll; a third one is",
			stderr: "API requests: get crds=3, patch crds=2, watch crds=1, list crds=1, watch crds/status=2\n",
			byVerb: "get=3 list=1 patch=2 watch=3", writes: 2, gets: 3, extra: 2,
			detail: "get crds=3, list crds=1, patch crds=2, watch crds/status=2, watch crds=1",
		},
		{
			name:   "Events are counted apart from the walk's writes",
			stderr: "API requests: patch kustomizations.kustomize.toolkit.fluxcd.io=2, create events.events.k8s.io=3, patch events.events.k8s.io=1\n",
			byVerb: "create=3 patch=3", writes: 2, events: 4,
			detail: "create events.events.k8s.io=3, patch events.events.k8s.io=1, patch kustomizations.kustomize.toolkit.fluxcd.io=2",
		},
		{name: "no requests made", stderr: "API requests: \n", byVerb: "", detail: ""},
		{name: "no line", stderr: "error: boom\n", wantErr: "-v"},
		{name: "bad pair", stderr: "API requests: list a=x\n", wantErr: `"list a=x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := ParseRequests(tt.stderr)
			if !wantErr(t, err, tt.wantErr) {
				return
			}
			if got := r.String(); got != tt.byVerb {
				t.Errorf("String() = %q, want %q", got, tt.byVerb)
			}
			if r.Writes() != tt.writes || r.Gets() != tt.gets || r.ExtraReads() != tt.extra {
				t.Errorf("Writes, Gets, ExtraReads = %d, %d, %d, want %d, %d, %d", r.Writes(), r.Gets(), r.ExtraReads(), tt.writes, tt.gets, tt.extra)
			}
			if got := r.EventWrites(); got != tt.events {
				t.Errorf("EventWrites() = %d, want %d", got, tt.events)
			}
			if got := r.Detail(); got != tt.detail {
				t.Errorf("Detail() = %q, want %q", got, tt.detail)
			}
		})
	}
}

func TestDiscovery(t *testing.T) {
	tests := []struct {
		req  kube.Request
		want bool
	}{
		{kube.Request{Verb: "get", Resource: "/api"}, true},
		{kube.Request{Verb: "list", Resource: ".cdi.kubevirt.io"}, true},
		{kube.Request{Verb: "list", Resource: "namespaces"}, false},
		{kube.Request{Verb: "patch", Resource: "kustomizations.kustomize.toolkit.fluxcd.io"}, false},
	}
	for _, tt := range tests {
		if got := Discovery(tt.req); got != tt.want {
			t.Errorf("Discovery(%v) = %v, want %v", tt.req, got, tt.want)
		}
	}
}

// TestExtraReadsWithinAllowsWatchRenewals: client-go renews each watch
// after 5 to 10 minutes, so a long walk may hold a second watch per kind
// without reading anything twice; a second list is still a read too many.
func TestExtraReadsWithinAllowsWatchRenewals(t *testing.T) {
	r := Requests{
		{Verb: "list", Resource: "ks"}: 1, {Verb: "watch", Resource: "ks"}: 2,
		{Verb: "watch", Resource: "crds"}: 3,
	}
	tests := []struct {
		elapsed time.Duration
		want    int
	}{
		{elapsed: 0, want: 3},
		{elapsed: 4 * time.Minute, want: 3},
		{elapsed: 5 * time.Minute, want: 1},
		{elapsed: 9*time.Minute + 30*time.Second, want: 1},
		{elapsed: 10 * time.Minute, want: 0},
	}
	for _, tt := range tests {
		if got := r.ExtraReadsWithin(tt.elapsed); got != tt.want {
			t.Errorf("ExtraReadsWithin(%s) = %d, want %d", tt.elapsed, got, tt.want)
		}
	}
	r[kube.Request{Verb: "list", Resource: "ks"}] = 2
	if got := r.ExtraReadsWithin(time.Hour); got != 1 {
		t.Errorf("a second list within an hour: ExtraReadsWithin = %d, want 1", got)
	}
}

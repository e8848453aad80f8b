package kubeevents

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/kubestandup/standup/pkg/kube"
)

// EventsGVR is the API standup posts its Events to.
var EventsGVR = eventsv1.SchemeGroupVersion.WithResource("events")

// eventsResource is the plural.group RBAC names.
const eventsResource = "events.events.k8s.io"

// Options tune a Poster.
type Options struct {
	// Instance is the Events' reportingInstance; "" is standup-HOSTNAME,
	// as client-go's recorder names its instance.
	Instance string
	// Warn receives, once, why posting stopped (a refusal, an API server
	// gone); nil says nothing.
	Warn func(string)
	// Queue bounds the Notices waiting to be posted; past it they are
	// dropped and counted (Stats). Zero is 1024.
	Queue int
	// FlushTimeout bounds Close's wait for the queue; zero is 10 s.
	FlushTimeout time.Duration
}

// Stats counts what a Poster did.
type Stats struct {
	// Created Events, and Series updates of an Event posted before.
	Created, Series int
	// Dropped Notices: queued past the bound, left when posting stopped,
	// or not posted by Close's deadline.
	Dropped int
	// OnMutations and WalkNotices split the requests posted (Created plus
	// Series) by what they tell of (OnMutation): one per mutation, or the
	// walk's own notices, a few per diagnosis and per walk.
	OnMutations, WalkNotices int
}

func (s *Stats) posted(n Notice) {
	if OnMutation(n.Reason) {
		s.OnMutations++
	} else {
		s.WalkNotices++
	}
}

// Poster posts Notices as Events from a goroutine of its own, in order,
// one request each.
type Poster struct {
	dyn      dynamic.Interface
	opts     Options
	queue    chan Notice
	done     chan struct{}
	ctx      context.Context
	cancel   context.CancelFunc
	mu       sync.Mutex
	stats    Stats
	stopped  bool
	series   map[seriesKey]*posted
	created  int64 // Events created, which keeps their names apart
	closeOne sync.Once
}

// seriesKey is what makes two Notices the same Event, as client-go's
// recorder keys its series: the objects, the reason and the action.
type seriesKey struct {
	regarding Ref
	related   Ref
	reason    string
	action    string
}

type posted struct {
	namespace, name string
	count           int32
}

// NewPoster starts a Poster writing through dyn; ctx ends its requests.
func NewPoster(ctx context.Context, dyn dynamic.Interface, opts Options) *Poster {
	if opts.Instance == "" {
		host, _ := os.Hostname()
		opts.Instance = "standup-" + host
	}
	if len(opts.Instance) > 128 {
		opts.Instance = opts.Instance[:128]
	}
	if opts.Queue <= 0 {
		opts.Queue = 1024
	}
	if opts.FlushTimeout <= 0 {
		opts.FlushTimeout = 10 * time.Second
	}
	ctx, cancel := context.WithCancel(ctx)
	p := &Poster{dyn: dyn, opts: opts, queue: make(chan Notice, opts.Queue), done: make(chan struct{}),
		ctx: ctx, cancel: cancel, series: map[seriesKey]*posted{}}
	go p.run()
	return p
}

// Post queues n; it never blocks the walk.
func (p *Poster) Post(ns ...Notice) {
	for _, n := range ns {
		select {
		case p.queue <- n:
		default:
			p.count(func(s *Stats) { s.Dropped++ })
		}
	}
}

// Close posts what is queued, waiting at most the flush timeout, and
// returns what was done.
func (p *Poster) Close() Stats {
	p.closeOne.Do(func() {
		close(p.queue)
		select {
		case <-p.done:
		case <-time.After(p.opts.FlushTimeout):
			p.cancel()
			<-p.done
		}
		p.cancel()
	})
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stats
}

func (p *Poster) run() {
	defer close(p.done)
	for n := range p.queue {
		if p.isStopped() || p.ctx.Err() != nil {
			p.count(func(s *Stats) { s.Dropped++ })
			continue
		}
		if err := p.post(n); err != nil {
			p.stop(err, n)
			p.count(func(s *Stats) { s.Dropped++ })
		}
	}
}

func (p *Poster) isStopped() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stopped
}

func (p *Poster) count(f func(*Stats)) {
	p.mu.Lock()
	f(&p.stats)
	p.mu.Unlock()
}

// stop turns posting off after its first failure, and says why once: a
// refusal will be refused again, and an API server that went away would
// make each Event wait for its request timeout.
func (p *Poster) stop(err error, n Notice) {
	p.mu.Lock()
	p.stopped = true
	p.mu.Unlock()
	if p.opts.Warn == nil || p.ctx.Err() != nil {
		return
	}
	ns := eventNamespace(n.Regarding)
	p.opts.Warn(fmt.Sprintf("Events are off for the rest of this run: Event %s for %s/%s/%s: %v; the walk goes on without them",
		n.Reason, n.Regarding.Kind, ns, n.Regarding.Name, kube.Explain(err, "create", eventsResource)))
}

// post creates n's Event, or updates the series of the one posted before.
func (p *Poster) post(n Notice) error {
	key := seriesKey{regarding: n.Regarding, reason: n.Reason, action: n.Action}
	if n.Related != nil {
		key.related = *n.Related
	}
	if prev, ok := p.series[key]; ok {
		prev.count++
		patch, err := seriesPatch(prev.count, n.Time)
		if err != nil {
			return err
		}
		if _, err := p.dyn.Resource(EventsGVR).Namespace(prev.namespace).Patch(p.ctx, prev.name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			return err
		}
		p.count(func(s *Stats) { s.Series++; s.posted(n) })
		return nil
	}
	ev := p.event(n)
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ev)
	if err != nil {
		return err
	}
	if _, err := p.dyn.Resource(EventsGVR).Namespace(ev.Namespace).Create(p.ctx, &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{}); err != nil {
		return err
	}
	p.series[key] = &posted{namespace: ev.Namespace, name: ev.Name, count: 1}
	p.created++
	p.count(func(s *Stats) { s.Created++; s.posted(n) })
	return nil
}

// Event is the events.k8s.io/v1 Event of n, as this Poster posts it.
func (p *Poster) event(n Notice) *eventsv1.Event {
	ev := &eventsv1.Event{
		TypeMeta:            metav1.TypeMeta{APIVersion: eventsv1.SchemeGroupVersion.String(), Kind: "Event"},
		ObjectMeta:          metav1.ObjectMeta{Name: eventName(n.Regarding.Name, n.Time, p.created), Namespace: eventNamespace(n.Regarding)},
		EventTime:           metav1.NewMicroTime(n.Time),
		ReportingController: ReportingController,
		ReportingInstance:   p.opts.Instance,
		Action:              n.Action,
		Reason:              n.Reason,
		Type:                n.Type,
		Note:                truncateNote(n.Note),
		Regarding:           objectReference(n.Regarding),
	}
	if n.Related != nil {
		rel := objectReference(*n.Related)
		ev.Related = &rel
	}
	return ev
}

func objectReference(r Ref) corev1.ObjectReference {
	return corev1.ObjectReference{APIVersion: r.APIVersion, Kind: r.Kind, Namespace: r.Namespace, Name: r.Name, UID: r.UID}
}

// eventNamespace is where an Event about r lives: r's namespace, and
// "default" for a cluster-scoped object, as client-go's recorder has it
// (and the API server requires of events.k8s.io/v1).
func eventNamespace(r Ref) string {
	if r.Namespace == "" {
		return metav1.NamespaceDefault
	}
	return r.Namespace
}

// eventName is client-go's, the object's name and the time in hex, with
// the count of Events created before it added to the time, so that two
// Events about one object at one instant (a pre-apply's) differ; the name
// is cut so the whole stays a valid name.
func eventName(object string, t time.Time, before int64) string {
	suffix := fmt.Sprintf(".%x", t.UnixNano()+before)
	if limit := 253 - len(suffix); len(object) > limit {
		object = object[:limit]
	}
	return object + suffix
}

func seriesPatch(count int32, last time.Time) ([]byte, error) {
	return json.Marshal(map[string]any{"series": eventsv1.EventSeries{Count: count, LastObservedTime: metav1.NewMicroTime(last)}})
}

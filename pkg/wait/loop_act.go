package wait

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/kube"
)

// actor performs the walker's actions through a Cluster: the hub's, or a
// spoke's for a pre-apply made there (Action.Cluster).
type actor struct {
	cluster Cluster
	bundle  *crds.Bundle
	spokes  map[string]spokeActor
	retry   retryPolicy
}

// spokeActor is a spoke's Cluster, bundle and name.
type spokeActor struct {
	cluster Cluster
	bundle  *crds.Bundle
	name    string
}

func (l *Loop) actor() actor {
	c := l.Cluster
	if c == nil {
		c = NewCluster(l.Client)
	}
	act := actor{cluster: c, bundle: l.Bundle, retry: defaultRetry(), spokes: map[string]spokeActor{}}
	for _, s := range l.Spokes {
		sc := s.Cluster
		if sc == nil {
			sc = NewCluster(s.Client)
		}
		act.spokes[s.Secret] = spokeActor{cluster: sc, bundle: s.Bundle, name: s.Name}
	}
	return act
}

// on is where a's mutation is made: its Cluster and bundle, and how a
// message names it ("" for the hub).
func (act actor) on(a Action) (Cluster, *crds.Bundle, string) {
	if a.Cluster == "" {
		return act.cluster, act.bundle, ""
	}
	s, ok := act.spokes[a.Cluster]
	if !ok {
		return nil, nil, OnCluster(a.Cluster, a.Cluster)
	}
	return s.cluster, s.bundle, OnCluster(s.name, a.Cluster)
}

// performAll performs actions in order, emits an event for each and reports
// its result to w. A non-nil error ends the walk, and interrupted tells
// that ctx ended it: the walk ends at a failed reconcile request (which
// leaves nothing to walk) and at a refused write, but a pre-apply that
// fails otherwise is the walker's to conclude from.
func (l *Loop) performAll(ctx context.Context, act actor, w *Walker, actions []Action) (interrupted bool, err error) {
	for _, a := range actions {
		res := act.perform(ctx, a)
		if fatal := watchRefusal(ctx); fatal != nil {
			return false, fatal
		}
		if res.Err != nil && ctx.Err() != nil {
			// Interrupted during the action: each of its writes is one
			// request, done whole or not at all, and nothing is
			// concluded from the failure (no node fails for it).
			return true, ctx.Err()
		}
		if res.Err != nil && (a.Kind == ActionReconcile || refused(res.Err)) {
			// A refused pre-apply is missing RBAC, not a deadlock: the
			// walk ends naming the verb, as for a refused reconcile.
			return false, res.Err
		}
		_, _, on := act.on(a)
		l.emit([]Event{actionEvent(time.Now(), a, res, on)})
		w.Done(res)
	}
	return false, nil
}

// perform performs one action, retrying what an API server restart makes fail.
func (act actor) perform(ctx context.Context, a Action) ActionResult {
	switch a.Kind {
	case ActionReconcile:
		err := retryTransient(ctx, act.retry, func() error {
			return act.cluster.RequestReconcile(ctx, a.Node, a.Token, a.Unsuspend)
		})
		return ActionResult{Action: a, Err: err}
	case ActionPreApplyCRDs:
		cluster, bundle, on := act.on(a)
		if cluster == nil {
			return ActionResult{Action: a, Err: fmt.Errorf("%s: no connection%s: nothing pre-applied", a.Node, on)}
		}
		if bundle == nil {
			return ActionResult{Action: a, Err: &crds.UnresolvedError{Diagnosis: *a.Diagnosis, Missing: a.Diagnosis.Missing}}
		}
		var res crds.Result
		err := retryTransient(ctx, act.retry, func() error {
			var err error
			res, err = cluster.PreApplyCRDs(ctx, bundle, *a.Diagnosis)
			return err
		})
		return ActionResult{Action: a, Applied: res.Created, Existing: res.Existing, Err: err}
	}
	return ActionResult{Action: a, Err: fmt.Errorf("unknown action %q", a.Kind)}
}

// retryPolicy paces retryTransient: the first delay, doubling up to most,
// for as long as limit.
type retryPolicy struct {
	first, most, limit time.Duration
}

// defaultRetry rides out an API server restart: up to a minute, asking
// again within 4 s of it being back.
func defaultRetry() retryPolicy {
	return retryPolicy{first: 250 * time.Millisecond, most: 4 * time.Second, limit: time.Minute}
}

// retryTransient retries fn while the API server is unreachable or drops
// the connection (kube.IsTransient), paced by p. fn must be idempotent: a
// dropped request may have been applied (a reconcile patch and a CRD
// pre-apply are: a CRD created by the dropped request exists on the retry,
// and is left alone). Any other error, a refusal among them, is returned
// at once.
func retryTransient(ctx context.Context, p retryPolicy, fn func() error) error {
	deadline := time.Now().Add(p.limit)
	delay := p.first
	for {
		err := fn()
		if err == nil || !kube.IsTransient(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		case <-time.After(delay):
		}
		delay = min(delay*2, p.most)
	}
}

// actionEvent is the event for an action performed, or failed; on names
// the spoke a pre-apply was made on (OnCluster), "" the hub.
func actionEvent(now time.Time, a Action, r ActionResult, on string) Event {
	id := a.Node
	e := Event{Time: now, Type: EventAction, Node: &id, Action: string(a.Kind), Diagnosis: a.Diagnosis, Spoke: a.Cluster}
	switch {
	case r.Err != nil:
		e.Reason, e.Message = "Failed", r.Err.Error()
	case a.Kind == ActionReconcile && a.Unsuspend:
		e.Reason, e.Message = "Resumed", flux.ResumeField(a.Node.Kind)+", "+flux.ReconcileRequestAnnotation+"="+a.Token
	case a.Kind == ActionReconcile:
		e.Reason, e.Message = "Requested", flux.ReconcileRequestAnnotation+"="+a.Token
	case len(r.Applied) > 0:
		e.Applied = append([]string{}, r.Applied...)
		e.Reason, e.Message = "Applied", fmt.Sprintf("created CustomResourceDefinition %v%s (field manager %s)", r.Applied, on, crds.FieldManager)
		if len(r.Existing) > 0 {
			e.Message += fmt.Sprintf("; CustomResourceDefinition %v exists: left alone", r.Existing)
		}
	default:
		e.Reason, e.Message = "NothingToApply", fmt.Sprintf("CustomResourceDefinition %v exists%s: left alone", r.Existing, on)
	}
	return e
}

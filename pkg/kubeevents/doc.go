// Package kubeevents leaves what standup does on a cluster where Flux
// users look first: Kubernetes Events (events.k8s.io/v1, reporting
// controller "standup"), which `flux events --for Kustomization/NAME`,
// `kubectl events --for` and `kubectl describe` list beside the
// controllers' own.
//
// Two rooms, as everywhere in standup. Translator, pure, turns the walk's
// events (wait.Event) into Notices: one per mutation standup made (a
// Kustomization or HelmRelease resumed or asked to reconcile, a CRD
// pre-applied, on the CRD and on the Kustomization it unblocks), one per
// step of a deadlock's diagnosis (suspected; then proven, or treated as
// deadlocked, with the kind of proof), and, when standup acted at all, one
// where the walk finished or gave up. Poster, the I/O, creates each Notice
// as an Event from a goroutine of its own, so the walk never waits on it:
// one request per Event, no reads, a repeat of the same Event sent as a
// series (count and last observed time) as client-go's recorder does, and
// flushed when the command ends. A refusal (RBAC without create on events)
// is said once and turns posting off; standup goes on, since Events are
// its account, never its work.
package kubeevents

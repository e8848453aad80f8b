// Package timeline holds a bring-up as a timeline, one bar per node, each
// a run of states (waiting on a dependency, queued, reconciling, stuck on
// a dry-run, pre-applying CRDs, waiting for a retry), and draws it as a
// Gantt chart: Mermaid's gantt, and a self-contained SVG a browser opens
// as it is. `standup report` builds one from an incident record (the walk
// that happened), `standup rehearse` from a simulation (the walk that
// would): both draw it here, the same way.
//
// Everything here is pure: no cluster, no files.
package timeline

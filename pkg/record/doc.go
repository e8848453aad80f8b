// Package record writes and reads standup's incident record: the NDJSON
// file `resume --record FILE` and `crds --record FILE` leave behind for
// the post-mortem of a bring-up, and that `standup report` and `standup
// rehearse` read.
//
// A record is the walk's -o json stream, line for line and under the same
// schemaVersion, with what a post-mortem needs besides: a header (the
// command line, the versions of standup, of the Flux APIs it reads and of
// kustomize-controller where its Deployment is visible), the graph at the
// start, and every API request standup made with its outcome. Every line
// is written and flushed as it comes, so a run killed mid-walk keeps what
// it saw; a reader takes a record cut short, its last partial line left
// out and said so. The file is bounded: past the limit, lines that repeat
// what the rest says (requests, node progress) are dropped and counted on
// a last line, and the actions, diagnoses and summary are kept.
//
// A record never holds a Secret's data: standup reads no Secret, and a
// request line holds the verb, the resource and the object's path, never a
// body.
package record

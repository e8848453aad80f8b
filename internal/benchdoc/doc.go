// Package benchdoc reads what the generated blocks of docs/benchmarks.md
// state, so that the tables built from them (the goals table, the README's
// summary) are derived, never typed. It depends on nothing of standup's, so
// the page can be rebuilt whatever state the rest of the tree is in.
package benchdoc

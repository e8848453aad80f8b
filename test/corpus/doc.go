// Package corpus holds the acceptance test over the public Flux
// repositories in ../shared/corpus (see its MANIFEST.md): the real standup
// binary runs tiers and audit on each, as a new user would, with no
// standup.yaml, and audit --fix on a copy of each that has a missing
// dependsOn edge (fix_test.go). It has no code of its own.
package corpus

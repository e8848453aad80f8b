// Package corpus holds the acceptance test over the public Flux
// repositories in ../shared/corpus (see its MANIFEST.md): the real standup
// binary runs tiers and audit on each, as a new user would, with no
// standup.yaml. It has no code of its own.
package corpus

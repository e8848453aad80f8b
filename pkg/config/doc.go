// Package config reads a repository's standup.yaml: what the repository
// declares of its CRDs that files alone cannot tell (kinds an operator
// creates at runtime from a trigger object, kinds a chart installs, CRDs
// installed before Flux), and how long an operator may take.
//
// Parse and Validate are pure; Load reads the file at a repository's root,
// and Find the one a command names or the one at the root of the checkout
// it runs in, each bounded in size and YAML alias expansion.
// RuntimeTriggers joins the file's declarations with the built-in catalog
// into the runtime-trigger facts the live commands (resume, crds) prove a
// deadlock with. The audit (package audit) reads the same Config; the live
// commands import this package, never the linter.
package config

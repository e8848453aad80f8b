// Package rendertest holds what the tests and benchmarks of pkg/render and
// its sub-packages share: repositories written to a temporary directory
// (WriteFiles, ScaleRepo) and the shared corpus of public Flux
// repositories (CorpusCases, CorpusDir). Only tests import it.
package rendertest

// Package ciskip is the one way a test may skip for a missing tool or
// facility (a shell, a pseudo-terminal, mkfifo, the corpus, the test world):
// it skips on a developer's machine and fails when CI is set, so CI can never
// pass with a test that did not run. TestNoBareSkips holds every test file of
// the module to it.
package ciskip

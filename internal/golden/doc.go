// Package golden holds tests' output to golden files: Compare, given each
// test package's own -update flag, fails on a difference or rewrites the
// file.
package golden

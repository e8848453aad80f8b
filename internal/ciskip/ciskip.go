package ciskip

import (
	"os"
	"testing"
)

// Enforced reports whether skips fail: CI is set to anything but "" or
// "false".
func Enforced() bool {
	v := os.Getenv("CI")
	return v != "" && v != "false"
}

// Skipf skips the test on a developer's machine, and fails it when CI is set:
// what it lacks must be installed there (scripts/test.sh does).
func Skipf(tb testing.TB, format string, args ...any) {
	tb.Helper()
	if Enforced() {
		tb.Fatalf("CI is set, so this fails instead of skipping: "+format, args...)
	}
	tb.Skipf(format, args...)
}

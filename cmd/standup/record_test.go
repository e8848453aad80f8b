package main

import (
	"strings"
	"testing"

	"github.com/kubestandup/standup/internal/printer"
	"github.com/kubestandup/standup/pkg/record"
)

// A record is the walk's -o json stream with more line types: the two
// schema versions move together.
func TestRecordSchemaIsTheWalks(t *testing.T) {
	if record.SchemaVersion != printer.WalkSchemaVersion {
		t.Fatalf("record.SchemaVersion %d, printer.WalkSchemaVersion %d", record.SchemaVersion, printer.WalkSchemaVersion)
	}
}

// --record with a dry run, or with crds --all, records nothing: a usage
// error, before any request and before any file is written.
func TestRecordRefusedWhereNothingIsWalked(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"resume", "--dry-run", "--record", dir + "/r.ndjson"},
		{"crds", "--dry-run", "--record", dir + "/r.ndjson"},
		{"crds", "--all", "--crds", dir, "--record", dir + "/r.ndjson"},
	} {
		out, errOut, code := run(t, "standup", append([]string{"--kubeconfig", dir + "/none"}, args...)...)
		if code != ExitUsage || out != "" || !strings.Contains(errOut, "--record") || !strings.Contains(errOut, "records nothing") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}

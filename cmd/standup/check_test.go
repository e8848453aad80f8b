package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestCheckRejectsUnknownOutput(t *testing.T) {
	var out, errOut bytes.Buffer
	err := Run(context.Background(), []string{"standup", "check", "-o", "yaml"}, Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
	if code := ExitCode(err, &errOut); code != ExitUsage {
		t.Fatalf("exit %d, want %d (usage); stderr %q", code, ExitUsage, errOut.String())
	}
}

package sarifcheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// minimal is a SARIF log of one result, with %s for the result's
// artifact uri.
const minimal = `{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "standup"}},
  "originalUriBaseIds": {"%%SRCROOT%%": {"uri": "file://GITROOT_DIR/"}},
  "results": [{"ruleId": "CYCLE", "message": {"text": "m"}, "partialFingerprints": {"p": "1"},
    "locations": [{"physicalLocation": {"artifactLocation": {"uri": %q, "uriBaseId": "%%SRCROOT%%"}, "region": {"startLine": 2}}}]}]}]}`

func TestValidate(t *testing.T) {
	tests := []struct {
		name, log, wantErr string
	}{
		{name: "a valid log", log: strings.Replace(minimal, "%q", `"a%20b/c.yaml"`, 1)},
		{name: "a version SARIF 2.1.0 does not know", log: `{"version": "2.0.0", "runs": []}`, wantErr: "version"},
		{name: "a schema that is no uri", log: strings.Replace(strings.Replace(minimal, "%q", `"c.yaml"`, 1), `{"version"`, `{"$schema": "no uri", "version"`, 1), wantErr: "uri"},
		{name: "a level SARIF does not know", log: `{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"message": {"text": "m"}, "level": "notice"}]}]}`, wantErr: "level"},
		{name: "a line before the first", log: strings.Replace(strings.Replace(minimal, "%q", `"c.yaml"`, 1), `"startLine": 2`, `"startLine": 0`, 1), wantErr: "startLine"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := strings.ReplaceAll(tt.log, "%%", "%")
			err := Validate([]byte(log))
			if tt.wantErr == "" && err != nil {
				t.Fatalf("valid log refused: %v", err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("got %v, want an error naming %s", err, tt.wantErr)
			}
		})
	}
}

func TestCodeScanning(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "a b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a b", "c.yaml"), []byte("x: 1\ny: 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	log := func(uri, line string) []byte {
		s := strings.ReplaceAll(strings.Replace(minimal, "%q", `"`+uri+`"`, 1), "%%", "%")
		s = strings.Replace(s, "GITROOT_DIR", filepath.ToSlash(root), 1)
		return []byte(strings.Replace(s, `"startLine": 2`, `"startLine": `+line, 1))
	}
	tests := []struct {
		name    string
		log     []byte
		wantErr string
	}{
		{name: "a file of the repository, a line in it", log: log("a%20b/c.yaml", "2")},
		{name: "a file that is not there", log: log("a%20b/d.yaml", "2"), wantErr: "names no file"},
		{name: "a line past the end", log: log("a%20b/c.yaml", "9"), wantErr: "startLine within"},
		{name: "a uri not percent-encoded", log: log("a b/c.yaml", "2"), wantErr: "not percent-encoded"},
		{name: "an absolute uri", log: log("file:///etc/passwd", "1"), wantErr: "not a relative reference"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := CodeScanning(tt.log, root)
			if tt.wantErr == "" && (err != nil || n != 1) {
				t.Fatalf("%d results, %v; want 1 and no error", n, err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("got %v, want an error naming %s", err, tt.wantErr)
			}
		})
	}
}

package sarifcheck

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaJSON is sarif-2.1/schema/sarif-schema-2.1.0.json of
// github.com/oasis-tcs/sarif-spec at e0583813964e (errata 01 of the OASIS
// standard, unchanged since 2024-05-02): see testdata/README.md.
//
//go:embed testdata/sarif-schema-2.1.0.json
var schemaJSON []byte

// schemaID is the schema's own id, under which it is compiled.
const schemaID = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil, fmt.Errorf("the vendored SARIF schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat() // uris must be URIs: a path with a space is not one
	if err := c.AddResource(schemaID, doc); err != nil {
		return nil, err
	}
	return c.Compile(schemaID)
})

// Validate checks a SARIF log against the SARIF 2.1.0 JSON schema.
func Validate(log []byte) error {
	schema, err := compiled()
	if err != nil {
		return err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(log))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return schema.Validate(doc)
}

// SourceRoot is the uriBaseId of standup's artifact locations.
const SourceRoot = "%SRCROOT%"

// result is what CodeScanning reads of a result.
type result struct {
	RuleID    string `json:"ruleId"`
	Locations []struct {
		PhysicalLocation *struct {
			ArtifactLocation struct {
				URI       string `json:"uri"`
				URIBaseID string `json:"uriBaseId"`
			} `json:"artifactLocation"`
			Region *struct {
				StartLine int `json:"startLine"`
			} `json:"region"`
		} `json:"physicalLocation"`
	} `json:"locations"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
}

// CodeScanning checks what GitHub code scanning needs of every result of
// standup's SARIF log beyond the schema: one location in a file, its uri
// relative to %SRCROOT% (declared in originalUriBaseIds as gitRoot) and
// naming a file there, a region.startLine within the file, and
// partialFingerprints unique in the run, so that two places never merge
// into one alert. It returns the number of results checked.
func CodeScanning(log []byte, gitRoot string) (int, error) {
	var doc struct {
		Runs []struct {
			OriginalURIBaseIDs map[string]struct {
				URI string `json:"uri"`
			} `json:"originalUriBaseIds"`
			Results []result `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(log, &doc); err != nil {
		return 0, err
	}
	if len(doc.Runs) != 1 {
		return 0, fmt.Errorf("%d runs, want 1", len(doc.Runs))
	}
	run := doc.Runs[0]
	want := (&url.URL{Scheme: "file", Path: filepath.ToSlash(gitRoot) + "/"}).String()
	if got := run.OriginalURIBaseIDs[SourceRoot].URI; got != want {
		return 0, fmt.Errorf("originalUriBaseIds[%s] is %q, want %q", SourceRoot, got, want)
	}
	var errs []error
	seen := map[string]int{}
	for i, r := range run.Results {
		if err := checkResult(r, gitRoot); err != nil {
			errs = append(errs, fmt.Errorf("result %d (%s): %w", i, r.RuleID, err))
		}
		if len(r.PartialFingerprints) == 0 {
			errs = append(errs, fmt.Errorf("result %d (%s): no partialFingerprints", i, r.RuleID))
		}
		for k, v := range r.PartialFingerprints {
			key := k + "=" + v
			if j, dup := seen[key]; dup {
				errs = append(errs, fmt.Errorf("results %d and %d share the fingerprint %s: one alert for two places", j, i, key))
			}
			seen[key] = i
		}
	}
	return len(run.Results), errors.Join(errs...)
}

func checkResult(r result, gitRoot string) error {
	if len(r.Locations) != 1 || r.Locations[0].PhysicalLocation == nil {
		return errors.New("want one location in a file")
	}
	p := r.Locations[0].PhysicalLocation
	if p.ArtifactLocation.URIBaseID != SourceRoot {
		return fmt.Errorf("uriBaseId %q, want %s", p.ArtifactLocation.URIBaseID, SourceRoot)
	}
	u, err := url.Parse(p.ArtifactLocation.URI)
	if err != nil || u.IsAbs() || strings.HasPrefix(u.Path, "/") {
		return fmt.Errorf("uri %q is not a relative reference", p.ArtifactLocation.URI)
	}
	if canonical := (&url.URL{Path: u.Path}).String(); canonical != p.ArtifactLocation.URI {
		return fmt.Errorf("uri %q is not percent-encoded: want %q", p.ArtifactLocation.URI, canonical)
	}
	data, err := os.ReadFile(filepath.Join(gitRoot, filepath.FromSlash(u.Path)))
	if err != nil {
		return fmt.Errorf("uri %q names no file of the git repository: %w", p.ArtifactLocation.URI, err)
	}
	lines := bytes.Count(data, []byte("\n")) + 1
	if p.Region == nil || p.Region.StartLine < 1 || p.Region.StartLine > lines {
		return fmt.Errorf("%s: region %+v, want a startLine within its %d lines", u.Path, p.Region, lines)
	}
	return nil
}

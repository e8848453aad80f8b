package coldstart

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/url"
	"path"
	"path/filepath"
	"strings"

	"github.com/kubestandup/standup/pkg/audit"
)

// FormatSARIF is SARIF 2.1.0, for code-scanning UIs: one of audit's formats.
const FormatSARIF = "sarif"

const (
	// sarifSchema is the OASIS schema of SARIF 2.1.0 (errata 01), the one
	// the tests validate against.
	sarifSchema  = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	sarifVersion = "2.1.0"
	// auditDocs is where the rules are documented; each rule's anchor is its code.
	auditDocs = "https://github.com/kubestandup/standup/blob/main/docs/audit.md"
	// SARIFSourceRoot is the uriBaseId of every artifact location: the root
	// of the git repository, which code-scanning UIs resolve paths against.
	SARIFSourceRoot = "%SRCROOT%"
	// SARIFFingerprint is the key of a result's partialFingerprints.
	SARIFFingerprint = "standupPlace/v1"
)

// The SARIF 2.1.0 subset standup writes.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool               sarifTool                `json:"tool"`
		OriginalURIBaseIDs map[string]sarifArtifact `json:"originalUriBaseIds,omitempty"`
		Results            []sarifResult            `json:"results"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		Version        string      `json:"version,omitempty"`
		InformationURI string      `json:"informationUri"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string       `json:"id"`
		Name                 string       `json:"name"`
		ShortDescription     sarifText    `json:"shortDescription"`
		HelpURI              string       `json:"helpUri"`
		DefaultConfiguration sarifDefault `json:"defaultConfiguration"`
	}
	sarifDefault struct {
		Level string `json:"level"`
	}
	sarifText struct {
		Text string `json:"text"`
	}
	sarifResult struct {
		RuleID              string            `json:"ruleId"`
		RuleIndex           int               `json:"ruleIndex"`
		Level               string            `json:"level"`
		Message             sarifText         `json:"message"`
		Locations           []sarifLocation   `json:"locations"`
		PartialFingerprints map[string]string `json:"partialFingerprints"`
		Properties          sarifProperties   `json:"properties"`
	}
	sarifLocation struct {
		PhysicalLocation *sarifPhysical `json:"physicalLocation,omitempty"`
		LogicalLocations []sarifLogical `json:"logicalLocations"`
	}
	sarifPhysical struct {
		ArtifactLocation sarifArtifact `json:"artifactLocation"`
		Region           sarifRegion   `json:"region"`
	}
	sarifArtifact struct {
		URI         string     `json:"uri,omitempty"`
		URIBaseID   string     `json:"uriBaseId,omitempty"`
		Description *sarifText `json:"description,omitempty"`
	}
	sarifRegion struct {
		StartLine int `json:"startLine"`
	}
	sarifLogical struct {
		Name               string `json:"name"`
		FullyQualifiedName string `json:"fullyQualifiedName"`
		Kind               string `json:"kind"`
	}
	sarifProperties struct {
		Kustomization string       `json:"kustomization"`
		Object        audit.Object `json:"object"`
		Fix           string       `json:"fix"`
		// Cluster is the place's cluster when not the local one.
		Cluster string `json:"cluster,omitempty"`
	}
)

// writeAuditSARIF writes r as a SARIF 2.1.0 log with one run. Every code is
// a rule; each place of each finding is a result (SARIF does not group:
// code-scanning UIs annotate each object), located at its object's line in
// its file, named from the root of the git repository, and at its object.
func writeAuditSARIF(w io.Writer, r *audit.Report, version string) error {
	driver := sarifDriver{Name: "standup", Version: version, InformationURI: "https://github.com/kubestandup/standup"}
	index := map[audit.Code]int{}
	for i, rule := range audit.Rules() {
		index[rule.Code] = i
		driver.Rules = append(driver.Rules, sarifRule{
			ID: string(rule.Code), Name: rule.Name,
			ShortDescription:     sarifText{Text: rule.Summary},
			HelpURI:              auditDocs + "#" + anchor(rule.Code),
			DefaultConfiguration: sarifDefault{Level: sarifLevel(rule.Severity)},
		})
	}
	prefix := repoPrefix(r.GitRoot, r.RepoRoot)
	prints := fingerprints(r.Hazards)
	results := make([]sarifResult, 0, len(r.Hazards))
	for i, h := range r.Hazards {
		loc := sarifLocation{LogicalLocations: []sarifLogical{{
			Name:               h.Object.String(),
			FullyQualifiedName: h.Kustomization.String() + "/" + h.Object.String(),
			Kind:               "resource",
		}}}
		if h.File != "" {
			loc.PhysicalLocation = &sarifPhysical{
				ArtifactLocation: sarifArtifact{URI: relativeURI(path.Join(prefix, h.File)), URIBaseID: SARIFSourceRoot},
				// An object whose line is unknown is annotated on the top
				// of its file: code scanning needs a line.
				Region: sarifRegion{StartLine: max(h.Line, 1)},
			}
		}
		text := h.Message + ". Fix: " + h.Fix + "."
		if h.Cluster != "" {
			text = "In cluster " + h.Cluster + ": " + text
		}
		results = append(results, sarifResult{
			RuleID: string(h.Code), RuleIndex: index[h.Code], Level: sarifLevel(h.Severity),
			Message:             sarifText{Text: text},
			Locations:           []sarifLocation{loc},
			PartialFingerprints: map[string]string{SARIFFingerprint: prints[i]},
			Properties:          sarifProperties{Kustomization: h.Kustomization.NamespacedName(), Object: h.Object, Fix: h.Fix, Cluster: h.Cluster},
		})
	}
	run := sarifRun{Tool: sarifTool{Driver: driver}, Results: results}
	if r.GitRoot != "" {
		run.OriginalURIBaseIDs = map[string]sarifArtifact{SARIFSourceRoot: {
			URI:         (&url.URL{Scheme: "file", Path: strings.TrimSuffix(filepath.ToSlash(r.GitRoot), "/") + "/"}).String(),
			Description: &sarifText{Text: "the root of the git repository (the repository root when it is in none)"},
		}}
	}
	log := sarifLog{Schema: sarifSchema, Version: sarifVersion, Runs: []sarifRun{run}}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}

// repoPrefix is the repository root as a slash-separated path relative to
// the git root ("" when they are one, or either is unknown).
func repoPrefix(gitRoot, repoRoot string) string {
	if gitRoot == "" || repoRoot == "" {
		return ""
	}
	rel, err := filepath.Rel(gitRoot, repoRoot)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return ""
	}
	return filepath.ToSlash(rel)
}

// relativeURI writes a slash-separated relative path as a relative URI
// reference: percent-encoded (a space, a "%"), and never read as a scheme
// (a first segment holding ":" is written "./a:b").
func relativeURI(p string) string {
	return (&url.URL{Path: p}).String()
}

// fingerprints returns, for each hazard, what tells its place apart from
// every other across runs: its code, its Kustomization and its object's
// group, kind, namespace and name, hashed; neither its file nor its line,
// so that moving the object keeps its alert. Places that share all of these
// (two dangling dependsOn of one Kustomization) are told apart by their
// message.
func fingerprints(hs []audit.Hazard) []string {
	keys := make([]string, len(hs))
	count := map[string]int{}
	for i, h := range hs {
		group := "" // core
		if g, _, grouped := strings.Cut(h.Object.APIVersion, "/"); grouped {
			group = g
		}
		keys[i] = strings.Join([]string{string(h.Code), h.Kustomization.String(), group, h.Object.Kind, h.Object.Namespace, h.Object.Name}, "\x00")
		count[keys[i]]++
	}
	out := make([]string, len(hs))
	for i, k := range keys {
		if count[k] > 1 {
			k += "\x00" + hs[i].Message
		}
		sum := sha256.Sum256([]byte(k))
		out[i] = hex.EncodeToString(sum[:16])
	}
	return out
}

// sarifLevel is SARIF's level of a severity: a notice is a "note".
func sarifLevel(s audit.Severity) string {
	if s == audit.SeverityNotice {
		return "note"
	}
	return string(s)
}

// anchor is the heading anchor GitHub gives a code in docs/audit.md.
func anchor(c audit.Code) string { return strings.ToLower(string(c)) }

package printer

import (
	"encoding/json"
	"io"
	"strings"

	"github.com/kubestandup/standup/pkg/audit"
)

const (
	sarifSchema  = "https://json.schemastore.org/sarif-2.1.0.json"
	sarifVersion = "2.1.0"
	// auditDocs is where the rules are documented; each rule's anchor is its code.
	auditDocs = "https://github.com/kubestandup/standup/blob/main/docs/audit.md"
)

// The SARIF 2.1.0 subset standup writes.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool    sarifTool     `json:"tool"`
		Results []sarifResult `json:"results"`
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
		RuleID     string          `json:"ruleId"`
		RuleIndex  int             `json:"ruleIndex"`
		Level      string          `json:"level"`
		Message    sarifText       `json:"message"`
		Locations  []sarifLocation `json:"locations"`
		Properties sarifProperties `json:"properties"`
	}
	sarifLocation struct {
		PhysicalLocation *sarifPhysical `json:"physicalLocation,omitempty"`
		LogicalLocations []sarifLogical `json:"logicalLocations"`
	}
	sarifPhysical struct {
		ArtifactLocation sarifArtifact `json:"artifactLocation"`
	}
	sarifArtifact struct {
		URI string `json:"uri"`
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
	}
)

// writeAuditSARIF writes r as a SARIF 2.1.0 log with one run. Every code is
// a rule; each hazard is a result located at its file, relative to the
// repository root, and at its object.
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
	results := make([]sarifResult, 0, len(r.Hazards))
	for _, h := range r.Hazards {
		loc := sarifLocation{LogicalLocations: []sarifLogical{{
			Name:               h.Object.String(),
			FullyQualifiedName: h.Kustomization.String() + "/" + h.Object.String(),
			Kind:               "resource",
		}}}
		if h.File != "" {
			loc.PhysicalLocation = &sarifPhysical{ArtifactLocation: sarifArtifact{URI: h.File}}
		}
		results = append(results, sarifResult{
			RuleID: string(h.Code), RuleIndex: index[h.Code], Level: sarifLevel(h.Severity),
			Message:    sarifText{Text: h.Message + ". Fix: " + h.Fix + "."},
			Locations:  []sarifLocation{loc},
			Properties: sarifProperties{Kustomization: h.Kustomization.NamespacedName(), Object: h.Object, Fix: h.Fix},
		})
	}
	log := sarifLog{Schema: sarifSchema, Version: sarifVersion, Runs: []sarifRun{{Tool: sarifTool{Driver: driver}, Results: results}}}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
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

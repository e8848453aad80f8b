package printer

import (
	"encoding/json"
	"io"

	"go.yaml.in/yaml/v3"
)

func writeTiersJSON(w io.Writer, r TiersReport) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(normalized(r))
}

func writeTiersYAML(w io.Writer, r TiersReport) error {
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(normalized(r)); err != nil {
		return err
	}
	return enc.Close()
}

// normalized fills nil lists with empty ones, so that json prints [] rather
// than null and the schema holds for hand-built reports too.
func normalized(r TiersReport) TiersReport {
	if r.SchemaVersion == 0 {
		r.SchemaVersion = TiersSchemaVersion
	}
	r.Tiers = NonNil(r.Tiers)
	r.Missing = NonNil(r.Missing)
	r.Warnings = NonNil(r.Warnings)
	tiers := make([]Tier, len(r.Tiers))
	for i, t := range r.Tiers {
		t.Nodes = NonNil(t.Nodes)
		nodes := make([]TierNode, len(t.Nodes))
		for j, n := range t.Nodes {
			n.DependsOn = NonNil(n.DependsOn)
			nodes[j] = n
		}
		t.Nodes = nodes
		tiers[i] = t
	}
	r.Tiers = tiers
	return r
}

// NonNil returns s, or an empty slice for nil, so that json writes [] and
// not null.
func NonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

package printer

import (
	"bytes"
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubestandup/standup/internal/golden"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

func TestPrintTiersGolden(t *testing.T) {
	fixtures := map[string]func(*testing.T) TiersReport{
		"offline": offlineReport,
		"live":    liveReport,
		// -n team-a on the live cluster: one node, its dependency outside.
		"live-team-a": func(t *testing.T) TiersReport { return liveReport(t).Narrowed("team-a") },
		// hub and spokes: spec.kubeConfig targets in every format.
		"hubspoke":      hubSpokeReport,
		"hubspoke-live": hubSpokeLiveReport,
	}
	type run struct {
		fixture, format string
		color           bool
	}
	var runs []run
	for _, fixture := range []string{"offline", "live", "live-team-a", "hubspoke", "hubspoke-live"} {
		for _, format := range TiersFormats() {
			runs = append(runs, run{fixture, format, false})
		}
	}
	runs = append(runs, run{"live", FormatText, true})
	for _, rn := range runs {
		name := "tiers_" + rn.fixture + "." + rn.format
		if rn.color {
			name += "-color"
		}
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			if err := PrintTiers(&out, rn.format, fixtures[rn.fixture](t), Options{Color: rn.color}); err != nil {
				t.Fatalf("PrintTiers() error = %v", err)
			}
			if hasEscape := strings.Contains(out.String(), "\x1b["); hasEscape != rn.color {
				t.Errorf("output has ANSI escapes = %v, want %v", hasEscape, rn.color)
			}
			compareGolden(t, filepath.Join("testdata", name+".golden"), out.Bytes())
		})
	}
	for _, fixture := range []string{"offline", "live", "live-team-a", "hubspoke"} {
		t.Run("tiers_"+fixture+".footer", func(t *testing.T) {
			var out bytes.Buffer
			if err := PrintTiersFooter(&out, fixtures[fixture](t), Options{}); err != nil {
				t.Fatal(err)
			}
			compareGolden(t, filepath.Join("testdata", "tiers_"+fixture+".footer.golden"), out.Bytes())
		})
	}
}

func compareGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	golden.Compare(t, path, got, *update)
}

package hygiene

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocsStateNoTypedFigures: every measured figure in docs/ and the
// README stands in a generated block, under the line that names its
// commit, command and machine; prose refers to the block.
func TestDocsStateNoTypedFigures(t *testing.T) {
	docs, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs = append(docs, filepath.Join("..", "..", "README.md"))
	if len(docs) < 5 {
		t.Fatalf("found %d documents: not this repository", len(docs))
	}
	for _, doc := range docs {
		f, err := os.Open(doc)
		if err != nil {
			t.Fatal(err)
		}
		figures, err := FiguresOutsideBlocks(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		for _, fig := range figures {
			t.Errorf("%s:%d: %q typed outside a generated block: move it into one, or refer to the block", strings.TrimPrefix(doc, "../../"), fig.Line, fig.Text)
		}
	}
}

func TestFiguresOutsideBlocks(t *testing.T) {
	doc := "# Results\n" +
		"standup took 42.3 s and 108.5 MiB, 1.6× the bound (1.21–1.64).\n" + // 4 figures
		"Flux re-checks every 30 s; inputs over 16 MiB are refused.\n" + // settings: none
		"Built with Go 1.26 against kustomize-controller v1.9.6 and `took 9.9 s`.\n" + // versions, code: none
		"<!-- bench:x begin -->\n| standup | 2.0 (1.8–2.1) |\n<!-- bench:x end -->\n" + // in a block: none
		"```\n$ standup resume\n✔ 7/7 ready in 4.3s\n```\n" + // in a fence: none
		"a walk of 40 ms per hop\n" // 1 figure
	figures, err := FiguresOutsideBlocks(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range figures {
		got = append(got, f.Text)
	}
	want := []string{"42.3 s", "108.5 MiB", "1.6×", "1.21–1.64", "40 ms"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("figures %q, want %q", got, want)
	}
	if _, err := FiguresOutsideBlocks(strings.NewReader("<!-- a begin -->\nno end\n")); err == nil {
		t.Error("a block without its end marker was not an error")
	}
}

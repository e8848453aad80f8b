package input

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// nested returns a flow sequence nested n levels deep.
func nested(n int) string {
	return strings.Repeat("[", n) + strings.Repeat("]", n) + "\n"
}

// wide returns a flow mapping of n keys, on line 1.
func wide(n int) string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("k%d: v", i)
	}
	return "{" + strings.Join(keys, ", ") + "}\n"
}

// fixture reads a file of testdata.
func fixture(t testing.TB, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestCheckYAML(t *testing.T) {
	tests := []struct {
		name string
		data string
		// want is a part of the reason, "" when the data passes.
		want string
	}{
		{name: "manifest", data: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: v}\n"},
		{name: "a few aliases", data: fixture(t, "anchors.yaml")},
		{name: "empty", data: ""},
		{name: "comments only", data: "# nothing\n---\n# here\n"},
		{name: "not YAML", data: "\x00\x01\x02 [unclosed: {\n"},
		{name: "undefined alias", data: "a: *nowhere\n"},
		{name: "alias bomb", data: fixture(t, "alias-bomb.yaml"), want: "document 1: YAML aliases expand the file by more than 100000 nodes"},
		{name: "alias bomb in a later document", data: "a: 1\n---\n" + fixture(t, "alias-bomb.yaml"), want: "document 2: YAML aliases"},
		{name: "alias inside its own anchor", data: "a: &a [1, *a]\n", want: "alias *a is inside its own anchor"},
		{name: "merge of its own anchor", data: "a: &a {b: 1, c: {<<: *a}}\n", want: "inside its own anchor"},
		{name: "deep but within the limit", data: nested(MaxDepth - 1)},
		{name: "deep", data: nested(MaxDepth + 1), want: "nested deeper than 1000 levels"},
		{name: "deep once an alias is expanded", data: "a: &a " + nested(600) + "b: " + strings.Repeat("[", 500) + "*a" + strings.Repeat("]", 500) + "\n", want: "once alias *a is expanded"},
		{name: "wide mapping within the limit", data: wide(20_000)},
		{name: "wide mapping", data: wide(50_001), want: "mappings too wide: the widest has 50001 keys (line 1)"},
		{name: "wide mapping repeated by an alias", data: "a: &a " + wide(25_000) + "b: *a\n", want: "mappings too wide: the widest has 25000 keys"},
		{name: "many aliases of a small mapping", data: "a: &a " + wide(50) + "b: [" + strings.Repeat("*a, ", 1499) + "*a]\n", want: "YAML aliases expand the file by more than 100000 nodes"},
		// The million-node cases are in TestCheckYAMLAtTheNodeLimit.
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { assertCheckYAML(t, tt.data, tt.want) })
	}
}

// assertCheckYAML checks CheckYAML on data: nil when want is "", else a
// one-line *LimitError naming the file whose reason holds want.
func assertCheckYAML(t *testing.T, data, want string) {
	t.Helper()
	err := CheckYAML("apps/x.yaml", []byte(data))
	if want == "" {
		if err != nil {
			t.Fatalf("CheckYAML = %v, want nil", err)
		}
		return
	}
	lim, ok := IsLimit(err)
	if !ok {
		t.Fatalf("CheckYAML = %v, want a *LimitError", err)
	}
	if lim.File != "apps/x.yaml" || !strings.Contains(lim.Reason, want) {
		t.Fatalf("CheckYAML = %v, want apps/x.yaml: ...%s...", err, want)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Fatalf("error is not one line: %q", err)
	}
}

// TestCheckYAMLLinear checks that the alias bomb, nine levels of nine, is
// measured without being expanded: the memo makes the scan linear.
func TestCheckYAMLLinear(t *testing.T) {
	// Twenty levels of nine would be 1.2e19 nodes: beyond an int64 too.
	var b strings.Builder
	b.WriteString(`a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]` + "\n")
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*a%d,", i-1), 9), ","))
	}
	allocs := testing.AllocsPerRun(3, func() {
		if _, ok := IsLimit(CheckYAML("x.yaml", []byte(b.String()))); !ok {
			t.Fatal("a bomb of twenty levels passed")
		}
	})
	if allocs > 10_000 {
		t.Fatalf("%.0f allocations for a 22-line file: the scan expands aliases", allocs)
	}
}

func FuzzCheckYAML(f *testing.F) {
	f.Add([]byte(fixture(f, "alias-bomb.yaml")))
	f.Add([]byte(fixture(f, "anchors.yaml")))
	f.Add([]byte("a: &a [1, *a]\n"))
	f.Add([]byte("a: &a {b: 1}\nc: {<<: [*a, *a]}\n---\nd: *a\n"))
	f.Add([]byte(nested(40)))
	for _, seed := range quickSeeds() {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if withinLimits(data) {
			if err := scanYAML("f.yaml", data); err != nil {
				t.Fatalf("withinLimits vouched for a file the scan refuses: %v", err)
			}
		}
		err := CheckYAML("f.yaml", data)
		if err == nil {
			return
		}
		if lim, ok := IsLimit(err); !ok || lim.File != "f.yaml" || strings.Contains(err.Error(), "\n") {
			t.Fatalf("CheckYAML = %q, want a one-line *LimitError naming f.yaml", err)
		}
	})
}

// quickSeeds are files at the edges of what withinLimits vouches for:
// the deepest nesting of each kind of collection, the most keys and nodes
// per byte, near quickMaxBytes.
func quickSeeds() []string {
	pairs := func(unit string, bytes int) string { // a flow sequence of single-pair mappings
		return "[" + strings.TrimSuffix(strings.Repeat(unit+",", bytes/(len(unit)+1)), ",") + "]\n"
	}
	return []string{
		nested(MaxDepth/2 - 1),
		strings.Repeat("{a: ", 495) + "b" + strings.Repeat("}", 495) + "\n",
		strings.Repeat("- ", 997) + "x\n",
		func() string {
			var b strings.Builder
			for i := range 170 {
				fmt.Fprintf(&b, "%sk:\n", strings.Repeat(" ", i))
			}
			return b.String()
		}(),
		pairs("?", 2*(MaxDepth-3)),
		pairs(":", 2*(MaxDepth-3)),
		"{" + strings.TrimSuffix(strings.Repeat("a,", quickMaxBytes/2-1), ",") + "}\n",
		"[" + strings.TrimSuffix(strings.Repeat("1,", quickMaxBytes/2-1), ",") + "]\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: b}\ndata: {k: v}\n",
	}
}

// TestWithinLimits checks what withinLimits vouches for: ordinary
// manifests, and files at its edges, which the scan must accept too; never
// a file with an alias, or too large or too deep to be bounded by its
// bytes.
func TestWithinLimits(t *testing.T) {
	for _, seed := range quickSeeds() {
		if !withinLimits([]byte(seed)) {
			t.Errorf("withinLimits does not vouch for a seed (%.40q...): it tests no edge", seed)
		}
		if err := scanYAML("x.yaml", []byte(seed)); err != nil {
			t.Errorf("scan refuses a seed (%.40q...): %v", seed, err)
		}
	}
	tests := []struct {
		name string
		data string
		want bool
	}{
		{"manifest", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a-b-c\ndata:\n  k: v\n", true},
		{"anchors", fixture(t, "anchors.yaml"), false},
		{"alias bomb", fixture(t, "alias-bomb.yaml"), false},
		{"a star in a value", "a: '*'\n", false},
		{"too large", "a: " + strings.Repeat("x", quickMaxBytes) + "\n", false},
		{"too many openers", strings.Repeat("- ", MaxDepth-1) + "x\n", false},
	}
	for _, tt := range tests {
		if got := withinLimits([]byte(tt.data)); got != tt.want {
			t.Errorf("%s: withinLimits = %v, want %v", tt.name, got, tt.want)
		}
	}
}

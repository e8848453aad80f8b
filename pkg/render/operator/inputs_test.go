package operator

import (
	"fmt"
	"testing"
)

// TestInputIDs holds the ids to the Operator's own test of its inputs
// (internal/inputs combine_test.go): the checksums of "foo", "bar", "baz"
// and of the permutations of two in-line input sets with one provider's.
func TestInputIDs(t *testing.T) {
	for s, want := range map[string]string{"foo": "42074437", "bar": "39649590", "baz": "40173886"} {
		if got := inputID(s); got != want {
			t.Errorf("inputID(%q) = %s, want %s", s, got, want)
		}
	}
	rset := provider{name: "rset", inputs: []map[string]any{{"id": "42074437"}, {"id": "39649590"}}}
	rsip := provider{name: "rsip", inputs: []map[string]any{{"id": "40173886"}}}
	perms, err := permute([]provider{rset, rsip}, false)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"563152006 42074437 40173886", "563676295 39649590 40173886"}
	if len(perms) != len(want) {
		t.Fatalf("permutations %v", perms)
	}
	for i, p := range perms {
		got := fmt.Sprint(p["id"], " ", p["rset"].(map[string]any)["id"], " ", p["rsip"].(map[string]any)["id"])
		if got != want[i] {
			t.Errorf("permutation %d: %s, want %s", i, got, want[i])
		}
	}
}

func TestPermute(t *testing.T) {
	a := provider{name: "A", inputs: []map[string]any{{"x": 1}, {"x": 2}}}
	b := provider{name: "b-2", inputs: []map[string]any{{"y": "a"}, {"y": "b"}}}
	empty := provider{name: "empty"}
	tests := []struct {
		name         string
		providers    []provider
		includeEmpty bool
		want         []string
	}{
		{"cartesian product, the last provider fastest", []provider{a, b}, false, []string{"1a", "1b", "2a", "2b"}},
		{"an empty provider is skipped", []provider{a, empty, b}, false, []string{"1a", "1b", "2a", "2b"}},
		{"includeEmptyProviders empties the product", []provider{a, empty, b}, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			perms, err := permute(tt.providers, tt.includeEmpty)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range perms {
				got = append(got, fmt.Sprint(p["a"].(map[string]any)["x"], p["b_2"].(map[string]any)["y"]))
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
	big := provider{name: "big", inputs: make([]map[string]any, 101)}
	if _, err := permute([]provider{big, big}, false); err == nil {
		t.Error("10201 permutations: no error")
	}
}

func TestNormalizeKey(t *testing.T) {
	for in, want := range map[string]string{"my-rset": "my_rset", "Git Tag!": "git_tag", "--a..b--": "a_b", "ünï": "n", "": ""} {
		if got := normalizeKey(in); got != want {
			t.Errorf("normalizeKey(%q) = %q, want %q", in, got, want)
		}
	}
}

package cliargs

import (
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kubestandup/standup/internal/ciskip"
)

func testValues(command, flag string) []string {
	switch {
	case flag == "output" && command == "crds --dry-run": // a mode
		return []string{"text", "yaml"}
	case flag == "output" && command == "tiers":
		return []string{"text", "json", "dot"}
	case flag == "output":
		return []string{"text", "json"}
	case command == "resume" && flag == "":
		return []string{"ks"}
	}
	return nil
}

// TestCompletionScriptsParse: each shell's script is valid for the shell
// (when it is installed) and holds every command and flag.
func TestCompletionScriptsParse(t *testing.T) {
	for _, shell := range Shells() {
		t.Run(shell, func(t *testing.T) {
			script, err := Completion(shell, "standup", testApp(), testValues)
			if err != nil {
				t.Fatal(err)
			}
			for _, word := range []string{"resume", "tiers", "crds", "capture", "--dry-run", "--out", "--kubeconfig", "-n"} {
				if !strings.Contains(script, word) {
					t.Errorf("the %s script lacks %s", shell, word)
				}
			}
			if _, err := exec.LookPath(shell); err != nil {
				ciskip.Skipf(t, "%s is not installed: syntax not checked", shell)
			}
			if out, err := exec.Command(shell, "-n", "-c", script).CombinedOutput(); err != nil {
				t.Fatalf("%s -n: %v\n%s\n%s", shell, err, out, script)
			}
		})
	}
	if _, err := Completion("tcsh", "standup", testApp(), testValues); err == nil {
		t.Error("Completion(tcsh) wrote a script")
	}
}

// complete returns what shell completes for line, running script as the
// shell's completion system would: bash with COMP_WORDS, zsh with words
// and CURRENT (compadd stubbed to match PREFIX as it does, _files to
// print "<files>"), fish
// with complete -C, in an empty directory.
func complete(t *testing.T, shell, script, line string) []string {
	t.Helper()
	words := strings.Split(line, " ")
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = strconv.Quote(w)
	}
	var sh string
	switch shell {
	case "bash":
		sh = script + "\nCOMP_WORDS=(" + strings.Join(quoted, " ") + ")\nCOMP_CWORD=" + strconv.Itoa(len(words)-1) +
			"\n__standup_complete\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n"
	case "zsh":
		sh = "compdef() { :; }\n" +
			"compadd() { local w; [[ $1 == -- ]] && shift; for w in \"$@\"; do [[ $w == \"$PREFIX\"* ]] && print -- $w; done; return 0; }\n" +
			"_files() { print -- '<files>'; }\n" +
			script + "\nwords=(" + strings.Join(quoted, " ") + ")\nCURRENT=" + strconv.Itoa(len(words)) +
			"\nPREFIX=${words[CURRENT]}\n__standup_complete\n"
	case "fish":
		sh = script + "\ncomplete -C " + strconv.Quote(line) + "\n"
	}
	cmd := exec.Command(shell, "-c", sh)
	cmd.Dir = t.TempDir()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", shell, err, out)
	}
	return strings.Fields(string(out))
}

// TestShellsComplete: each shell's script completes commands, the flags of
// the command typed so far (global flags and values skipped), and the
// values it knows; a value it does not know is a file name.
func TestShellsComplete(t *testing.T) {
	const files = "<files>"
	tests := []struct {
		line string // the words typed; a trailing space starts an empty word
		want []string
	}{
		{"standup ", []string{"resume", "tiers", "crds"}},
		{"standup t", []string{"tiers"}},
		{"standup crds ", []string{"capture"}},
		{"standup crds capture --o", []string{"--out", "--output"}},
		{"standup tiers -o ", []string{"text", "json", "dot"}},
		{"standup tiers --output j", []string{"json"}},
		{"standup -o ", []string{"text", "json"}},
		{"standup --kubeconfig tiers t", []string{"tiers"}}, // tiers is the flag's value
		{"standup -n flux-system resume --d", []string{"--dry-run"}},
		{"standup resume apps --max", []string{"--max-inflight"}},
		{"standup resume ", []string{"ks"}},
		{"standup resume --crds ", []string{files}},
		{"standup crds -o ", []string{"text", "json"}},
		{"standup crds --dry-run -o ", []string{"text", "yaml"}},
		{"standup crds --dry-run --crds x -o ", []string{"text", "yaml"}},
		{"standup crds --dry-run capture -o ", []string{"text", "json"}},
	}
	for _, shell := range Shells() {
		t.Run(shell, func(t *testing.T) {
			if _, err := exec.LookPath(shell); err != nil {
				ciskip.Skipf(t, "%s is not installed", shell)
			}
			script, err := Completion(shell, "standup", testApp(), testValues)
			if err != nil {
				t.Fatal(err)
			}
			for _, tt := range tests {
				want := tt.want
				if slices.Equal(want, []string{files}) && shell != "zsh" {
					want = nil // bash falls back to its own; fish lists the empty directory
				}
				got := complete(t, shell, script, tt.line)
				if shell == "fish" { // fish sorts
					slices.Sort(got)
					want = slices.Sorted(slices.Values(want))
				}
				if !slices.Equal(got, want) && len(got)+len(want) > 0 {
					t.Errorf("%q completes %q, want %q", tt.line, got, want)
				}
			}
		})
	}
}

package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kubestandup/standup/internal/cliargs"
)

// helpPaths are standup itself ("") and every command a user may type.
func helpPaths(t *testing.T) []string {
	return append([]string{""}, visibleCommands(t)...)
}

// helpAt runs `standup PATH --help` as prog, its stdout wrapped to
// columns, and returns it.
func helpAt(t *testing.T, prog, path string, columns int) string {
	t.Helper()
	var out, errOut bytes.Buffer
	args := append(append([]string{prog}, strings.Fields(path)...), "--help")
	err := Run(context.Background(), args, Streams{In: strings.NewReader(""), Out: columnsWriter{Writer: &out, columns: columns}, Err: &errOut})
	if code := ExitCode(err, &errOut); code != ExitOK {
		t.Fatalf("%s --help: exit %d: %s", path, code, errOut.String())
	}
	return out.String()
}

// TestHelpGolden: every command's --help, where stdout is no terminal (80
// columns), is its golden file in testdata/help (go test -run
// TestHelpGolden -update rewrites them).
func TestHelpGolden(t *testing.T) {
	for _, path := range helpPaths(t) {
		name := strings.Join(append([]string{"standup"}, strings.Fields(path)...), "-")
		t.Run(name, func(t *testing.T) {
			out, errOut, code := run(t, "standup", append(strings.Fields(path), "--help")...)
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden := filepath.Join("testdata", "help", name+".golden")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test -run TestHelpGolden -update writes it)", err)
			}
			if out != string(want) {
				t.Errorf("--help differs from %s (-update rewrites it):\n%s", golden, out)
			}
		})
	}
}

// TestHelpFitsTheWidth: no line of any command's help is wider than the
// width it is wrapped to (80 where stdout is no terminal), whatever name
// standup runs by; at other widths too, but for a line of one word that
// cannot be broken.
func TestHelpFitsTheWidth(t *testing.T) {
	for _, prog := range []string{"standup", "/opt/bin/kubectl-standup", "/opt/bin/flux-standup"} {
		for _, path := range helpPaths(t) {
			out, _, _ := run(t, prog, append(strings.Fields(path), "--help")...)
			checkWidth(t, prog+" "+path+" --help", out, cliargs.DefaultWidth)
		}
	}
	for _, columns := range []int{50, 60, 100, 132} {
		for _, path := range helpPaths(t) {
			checkWidth(t, path+" --help", helpAt(t, "standup", path, columns), columns)
		}
	}
}

// checkWidth fails for each line of text wider than width, but for a line
// that holds a single word, or a single quoted argument of an example.
func checkWidth(t *testing.T, what, text string, width int) {
	t.Helper()
	for i, line := range strings.Split(text, "\n") {
		word := strings.TrimSpace(line)
		quoted := len(word) > 1 && strings.ContainsAny(word[:1], `'"`) && word[len(word)-1] == word[0]
		if n := utf8.RuneCountInString(line); n > width && len(strings.Fields(line)) > 1 && !quoted {
			t.Errorf("%s at %d columns: line %d is %d wide:\n%s", what, width, i+1, n, line)
		}
	}
}

// TestHelpWrapsToTheWidth: the same help at 60 and at 132 columns says the
// same words, in fewer lines when wider; and a description is never cut.
func TestHelpWrapsToTheWidth(t *testing.T) {
	narrow, wide := helpAt(t, "standup", "resume", 60), helpAt(t, "standup", "resume", 132)
	// The same words but the marks a wrapped example repeats: "#", "\\".
	words := func(s string) string {
		return strings.Join(slices.DeleteFunc(strings.Fields(s), func(w string) bool { return w == "#" || w == `\` }), " ")
	}
	if words(narrow) != words(wide) {
		t.Errorf("the words differ with the width:\n%s\n%s", narrow, wide)
	}
	if n, w := strings.Count(narrow, "\n"), strings.Count(wide, "\n"); w >= n {
		t.Errorf("%d lines at 132 columns, %d at 60", w, n)
	}
}

// TestHelpOffersOnlyWhatTheCommandUses: a command that never reaches a
// cluster lists no cluster flags, one that reads every namespace no -n;
// audit lists the cluster flags under --from-cluster's heading, tiers
// under "without --path".
func TestHelpOffersOnlyWhatTheCommandUses(t *testing.T) {
	clusterWords := []string{"CLUSTER FLAGS", "--kubeconfig", "--context", "--server", "--token", "--as ", "--request-timeout", "--verbose"}
	tests := []struct {
		path       string
		cluster    string // the cluster flags' heading, "" for none
		namespace  bool
		globalFlag bool // a GLOBAL FLAGS section
	}{
		{path: "version", globalFlag: true},
		{path: "completion"},
		{path: "audit", cluster: "CLUSTER FLAGS (with --from-cluster):", globalFlag: true},
		{path: "crds capture", cluster: "CLUSTER FLAGS:", globalFlag: true},
		{path: "tiers", cluster: "CLUSTER FLAGS (without --path):", namespace: true, globalFlag: true},
		{path: "resume", cluster: "CLUSTER FLAGS:", namespace: true, globalFlag: true},
		{path: "crds", cluster: "CLUSTER FLAGS:", namespace: true, globalFlag: true},
		{path: "check", cluster: "CLUSTER FLAGS:", namespace: true, globalFlag: true},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			out, _, _ := run(t, "standup", append(strings.Fields(tt.path), "--help")...)
			if tt.cluster == "" {
				for _, w := range clusterWords {
					if strings.Contains(out, w) {
						t.Errorf("%s --help offers %q:\n%s", tt.path, w, out)
					}
				}
			} else if !strings.Contains(out, "\n"+tt.cluster+"\n") {
				t.Errorf("%s --help has no %q section:\n%s", tt.path, tt.cluster, out)
			}
			if has := strings.Contains(out, "--namespace"); has != tt.namespace {
				t.Errorf("%s --help offers -n: %t, want %t", tt.path, has, tt.namespace)
			}
			if has := strings.Contains(out, "\nGLOBAL FLAGS:\n"); has != tt.globalFlag {
				t.Errorf("%s --help has GLOBAL FLAGS: %t, want %t", tt.path, has, tt.globalFlag)
			}
			flags, _, _ := strings.Cut(out, "\nGLOBAL FLAGS:\n")
			if _, own, ok := strings.Cut(flags, "\nFLAGS:\n"); !ok || !strings.Contains(own, "-h, --help") {
				t.Errorf("%s --help does not list its own flags first:\n%s", tt.path, out)
			}
		})
	}
}

// TestGlobalFlagsAfterTheName: after the command name, a command takes
// only the global flags it uses, and says why it refuses another (exit 2,
// nothing run); before the name, standup takes every global flag, so that
// an alias with --context runs every command.
func TestGlobalFlagsAfterTheName(t *testing.T) {
	refused := []struct {
		args []string
		want string
	}{
		{[]string{"version", "--kubeconfig", "k"}, "standup: version: --kubeconfig is not used here: version reaches no cluster (see standup version --help)\n"},
		{[]string{"completion", "bash", "--context", "prod"}, "standup: completion: --context is not used here: completion reaches no cluster (see standup completion --help)\n"},
		{[]string{"audit", "--path", "x", "-n", "apps"}, "standup: audit: -n is not used here: audit reads every namespace (see standup audit --help)\n"},
		{[]string{"crds", "capture", "--out", "x", "-A"}, "standup: crds capture: -A is not used here: crds capture reads every namespace (see standup crds capture --help)\n"},
		{[]string{"version", "-q"}, "standup: version: -q is not used here: version has no use for it (see standup version --help)\n"},
	}
	for _, tt := range refused {
		out, errOut, code := run(t, "standup", tt.args...)
		if code != ExitUsage || out != "" || errOut != tt.want {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", tt.args, code, out, errOut, tt.want)
		}
	}
	for _, args := range [][]string{
		{"--kubeconfig", "/nonexistent", "--context", "prod", "version"},
		{"-n", "apps", "-q", "completion", "bash"},
		{"-n", "apps", "audit", "--path", "../../examples/homelab/clusters/prod", "-q"},
	} {
		if _, errOut, code := run(t, "standup", args...); code != ExitOK {
			t.Errorf("%v: exit %d: %s", args, code, errOut)
		}
	}
}

// TestEveryCommandSaysWhatItUses: each command a user may type is listed
// by globalUseOf, so that none gets every global flag by default.
func TestEveryCommandSaysWhatItUses(t *testing.T) {
	for _, path := range visibleCommands(t) {
		if _, ok := globalUseOf(path); !ok {
			t.Errorf("globalUseOf does not list %q", path)
		}
	}
}

// TestManPagesFitTheWidth: what man shows of every page at 80 columns is
// 80 wide at most; the preformatted text of the source leaves man its 7
// columns of indent.
func TestManPagesFitTheWidth(t *testing.T) {
	dir := t.TempDir()
	if _, errOut, code := run(t, "standup", "__man", dir); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	pages, _ := filepath.Glob(filepath.Join(dir, "*.1"))
	if len(pages) == 0 {
		t.Fatal("no pages")
	}
	_, manErr := exec.LookPath("man")
	for _, page := range pages {
		src, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		preformatted := false
		for _, line := range strings.Split(string(src), "\n") {
			switch line {
			case ".EX":
				preformatted = true
			case ".EE":
				preformatted = false
			default:
				if n := utf8.RuneCountInString(strings.ReplaceAll(line, `\-`, "-")); preformatted && n > 80-7 {
					t.Errorf("%s: a preformatted line of %d columns: %s", filepath.Base(page), n, line)
				}
			}
		}
		if manErr != nil {
			continue
		}
		cmd := exec.Command("man", "-l", page)
		cmd.Env = append(os.Environ(), "MANPAGER=cat", "MANWIDTH=80", "MAN_KEEP_FORMATTING=")
		text, err := cmd.Output()
		if err != nil {
			t.Fatalf("man -l %s: %v", page, err)
		}
		checkWidth(t, "man "+filepath.Base(page), string(text), 80)
	}
	if manErr != nil {
		t.Log("man is not installed: the rendered pages are not checked, only their source")
	}
}

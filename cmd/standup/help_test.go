package main

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/kubestandup/standup/internal/ciskip"
	"github.com/kubestandup/standup/pkg/flux"
)

// run runs standup as prog (os.Args[0]) with args, returning its streams
// and exit code.
func run(t *testing.T, prog string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := Run(context.Background(), append([]string{prog}, args...), Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
	code = ExitCode(err, &errOut)
	return out.String(), errOut.String(), code
}

// TestVersionFlag: standup --version exits 0 and prints what standup
// version prints.
func TestVersionFlag(t *testing.T) {
	want, _, code := run(t, "standup", "version")
	if code != ExitOK || !strings.HasPrefix(want, "standup v") {
		t.Fatalf("version: exit %d, %q", code, want)
	}
	for _, args := range [][]string{{"--version"}, {"--no-color", "--version"}} {
		out, errOut, code := run(t, "standup", args...)
		if code != ExitOK || out != want || errOut != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 0 and %q", args, code, out, errOut, want)
		}
	}
}

// visibleCommands returns the path of every command a user may type.
func visibleCommands(t *testing.T) []string {
	t.Helper()
	var paths []string
	var walk func(prefix string, cmds []*cli.Command)
	walk = func(prefix string, cmds []*cli.Command) {
		for _, c := range cmds {
			if c.Hidden || c.Name == "help" {
				continue
			}
			paths = append(paths, prefix+c.Name)
			walk(prefix+c.Name+" ", c.Subcommands)
		}
	}
	walk("", newApp(Streams{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, "standup", "standup").Commands)
	return paths
}

// TestEveryHelpHasExamples: standup's help and every command's end with
// an EXAMPLES section whose command lines run that command.
func TestEveryHelpHasExamples(t *testing.T) {
	for _, path := range append([]string{""}, visibleCommands(t)...) {
		t.Run("standup "+path, func(t *testing.T) {
			out, errOut, code := run(t, "standup", append(strings.Fields(path), "--help")...)
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			_, examples, ok := strings.Cut(out, "\nEXAMPLES:\n")
			if !ok {
				t.Fatalf("no EXAMPLES section:\n%s", out)
			}
			runs := 0
			for line := range strings.SplitSeq(examples, "\n") {
				line = strings.TrimSpace(line)
				if line == "" || strings.HasPrefix(line, "#") {
					continue
				}
				if !strings.Contains(line, strings.TrimSpace("standup "+path)) {
					t.Errorf("example %q does not run standup %s", line, path)
				}
				runs++
			}
			if runs == 0 {
				t.Errorf("EXAMPLES has no command line:\n%s", examples)
			}
		})
	}
}

// TestMistakesGetSuggestions: a mistyped command, subcommand or flag (after
// a name too, where flags are hoisted) is refused in one line, exit 2,
// with what it most likely meant; nothing is sent and nothing printed on
// stdout.
func TestMistakesGetSuggestions(t *testing.T) {
	kubeconfig, requests := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusServiceUnavailable)
	})
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"tirs"}, `unknown command "tirs"; did you mean "tiers"? (see standup --help)`},
		{[]string{"resmue", "apps"}, `unknown command "resmue"; did you mean "resume"? (see standup --help)`},
		{[]string{"chekc", "-o", "json"}, `unknown command "chekc"; did you mean "check"? (see standup --help)`},
		{[]string{"help", "tirs"}, `unknown command "tirs"; did you mean "tiers"? (see standup --help)`},
		{[]string{"completon", "bash"}, `unknown command "completon"; did you mean "completion"? (see standup --help)`},
		{[]string{"apply"}, `unknown command "apply" (see standup --help)`},
		{[]string{"crds", "captur", "--out", "x"}, `crds: unknown flag --out; it is a flag of "crds capture" (see standup crds --help)`},
		{[]string{"crds", "captur"}, `crds takes no arguments, got "captur" (did you mean "crds capture"?); see standup crds --help`},
		{[]string{"tiers", "--pth", "clusters/prod"}, `tiers: unknown flag --pth; did you mean --path? (see standup tiers --help)`},
		{[]string{"resume", "apps", "--dry-rn"}, `resume: unknown flag --dry-rn; did you mean --dry-run? (see standup resume --help)`},
		{[]string{"resume", "apps", "--max-inflite", "2"}, `resume: unknown flag --max-inflite; did you mean --max-inflight? (see standup resume --help)`},
		{[]string{"crds", "capture", "--otu", "x"}, `crds capture: unknown flag --otu; did you mean --out? (see standup crds capture --help)`},
		{[]string{"--kubeconfg", "x", "tiers"}, `unknown flag --kubeconfg; did you mean --kubeconfig? (see standup --help)`},
		{[]string{"tiers", "--no-header"}, `tiers: unknown flag --no-header; did you mean --no-headers? (see standup tiers --help)`},
		{[]string{"tiers", "--nothing-like-it"}, `tiers: unknown flag --nothing-like-it (see standup tiers --help)`},
		{[]string{"tiers", "--timeout", "soon"}, `tiers: invalid value "soon" for flag -timeout: parse error (see standup tiers --help)`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			before := requests.Load()
			out, errOut, code := run(t, "standup", append([]string{"--kubeconfig", kubeconfig}, tt.args...)...)
			if code != ExitUsage || errOut != "standup: "+tt.want+"\n" || out != "" {
				t.Errorf("exit %d, stdout %q, stderr %q\nwant exit 2 and %q", code, out, errOut, "standup: "+tt.want)
			}
			if n := requests.Load() - before; n != 0 {
				t.Errorf("%d API requests", n)
			}
		})
	}
}

func TestInvocation(t *testing.T) {
	tests := []struct{ arg0, prog, bin string }{
		{"standup", "standup", "standup"},
		{"/usr/local/bin/standup", "standup", "standup"},
		{"", "standup", "standup"},
		{"/home/me/.krew/bin/kubectl-standup", "kubectl standup", "kubectl-standup"},
		{`kubectl-standup.exe`, "kubectl standup", "kubectl-standup"},
		{"kubectl-flux_standup", "kubectl flux-standup", "kubectl-flux_standup"},
		{"/home/me/.fluxcd/plugins/flux-standup", "flux standup", "flux-standup"},
		{"kubectl-", "kubectl-", "kubectl-"},
		{"su", "su", "su"},
	}
	for _, tt := range tests {
		if prog, bin := invocation(tt.arg0); prog != tt.prog || bin != tt.bin {
			t.Errorf("invocation(%q) = %q, %q; want %q, %q", tt.arg0, prog, bin, tt.prog, tt.bin)
		}
	}
}

// invokedAs is what help and errors must show when standup is invoked as
// a kubectl plugin (krew) or a Flux CLI plugin.
var invokedAs = []struct{ bin, prog string }{
	{"kubectl-standup", "kubectl standup"},
	{"flux-standup", "flux standup"},
}

// TestHelpAndErrorsSayTheInvocation: run as kubectl-standup or
// flux-standup, usage, help, examples, suggestions and errors all name the
// command as the user typed it.
func TestHelpAndErrorsSayTheInvocation(t *testing.T) {
	for _, as := range invokedAs {
		t.Run(as.bin, func(t *testing.T) {
			checkInvocation(t, as.prog, func(args ...string) (string, string, int) {
				return run(t, "/opt/bin/"+as.bin, args...)
			})
		})
	}
}

// checkInvocation checks that standup, run through runAs, speaks of
// itself as prog.
func checkInvocation(t *testing.T, prog string, runAs func(args ...string) (string, string, int)) {
	t.Helper()
	out, _, code := runAs("--help")
	if code != ExitOK || !strings.Contains(out, "USAGE:\n   "+prog+" [global flags] command") || !strings.Contains(out, "\n   "+prog+" tiers --path clusters/prod\n") {
		t.Errorf("--help: exit %d, want usage and examples of %s:\n%s", code, prog, out)
	}
	out, _, code = runAs("crds", "capture", "--help")
	if code != ExitOK || !strings.Contains(out, "   "+prog+" crds capture - ") || !strings.Contains(out, "\n   "+prog+" crds capture --out bootstrap/crds\n") {
		t.Errorf("crds capture --help: exit %d, want its name and examples as %s:\n%s", code, prog, out)
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"tirs"}, prog + `: unknown command "tirs"; did you mean "tiers"? (see ` + prog + " --help)\n"},
		{[]string{"tiers", "--pth", "x"}, prog + ": tiers: unknown flag --pth; did you mean --path? (see " + prog + " tiers --help)\n"},
		{[]string{"tiers", "extra"}, prog + `: tiers takes no arguments, got "extra" (did you mean --path extra?); see ` + prog + " tiers --help\n"},
		{[]string{"crds", "capture"}, prog + ": crds capture: --out DIR is required: the directory to write one file per CRD into\n"},
	}
	for _, tt := range tests {
		out, errOut, code := runAs(tt.args...)
		if code != ExitUsage || errOut != tt.want || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", tt.args, code, out, errOut, tt.want)
		}
	}
	out, errOut, code := runAs("tiers", "--path", "../../examples/homelab/clusters/prod", "-q")
	if code != ExitOK || !strings.Contains(out, "flux-system/apps-vms") {
		t.Errorf("tiers: exit %d: %s%s", code, out, errOut)
	}
}

// TestInvokedThroughSymlinks: the real binary, run through the links krew
// and the Flux CLI would run (kubectl-standup, flux-standup), speaks of
// itself as kubectl standup and flux standup.
func TestInvokedThroughSymlinks(t *testing.T) {
	bin := standupBinary(t)
	dir := t.TempDir()
	for _, as := range invokedAs {
		t.Run(as.bin, func(t *testing.T) {
			link := filepath.Join(dir, as.bin)
			if err := os.Symlink(bin, link); err != nil {
				t.Fatal(err)
			}
			checkInvocation(t, as.prog, func(args ...string) (string, string, int) {
				cmd := exec.Command(link, args...)
				cmd.Env = append(os.Environ(), "KUBECONFIG=/nonexistent")
				var out, errOut bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &errOut
				err := cmd.Run()
				code := 0
				if ee, ok := err.(*exec.ExitError); ok {
					code = ee.ExitCode()
				} else if err != nil {
					t.Fatal(err)
				}
				return out.String(), errOut.String(), code
			})
		})
	}
}

// TestCompletionScripts: standup completion SHELL prints a script that the
// shell parses and that names every command; bash's completes them.
func TestCompletionScripts(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		t.Run(shell, func(t *testing.T) {
			script, errOut, code := run(t, "standup", "completion", shell)
			if code != ExitOK || errOut != "" {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			for _, path := range visibleCommands(t) {
				name := path[strings.LastIndex(path, " ")+1:]
				if !strings.Contains(script, name) {
					t.Errorf("the %s script lacks %s", shell, name)
				}
			}
			for _, word := range []string{"mermaid", "sarif", "--no-headers", "--dry-run"} {
				if !strings.Contains(script, word) {
					t.Errorf("the %s script lacks %s", shell, word)
				}
			}
			if _, err := exec.LookPath(shell); err != nil {
				ciskip.Skipf(t, "%s is not installed: syntax not checked", shell)
			}
			if out, err := exec.Command(shell, "-n", "-c", script).CombinedOutput(); err != nil {
				t.Fatalf("%s -n: %v\n%s", shell, err, out)
			}
		})
	}
	if _, err := exec.LookPath("bash"); err == nil {
		script, _, _ := run(t, "standup", "completion", "bash")
		sh := script + "\nCOMP_WORDS=(standup tiers -o '')\nCOMP_CWORD=3\n__standup_complete\necho \"${COMPREPLY[*]}\"\n" +
			"COMP_WORDS=(standup '')\nCOMP_CWORD=1\n__standup_complete\necho \"${COMPREPLY[*]}\"\n"
		out, err := exec.Command("bash", "--norc", "-c", sh).CombinedOutput()
		if err != nil || string(out) != "text json yaml dot mermaid shell\nversion tiers resume crds audit check rehearse report completion\n" {
			t.Errorf("bash completes %q (%v)", out, err)
		}
	}
	for _, args := range [][]string{{"completion"}, {"completion", "tcsh"}, {"completion", "bash", "zsh"}, {"completion", "bash", "-o", "json"}} {
		if out, _, code := run(t, "standup", args...); code != ExitUsage || out != "" {
			t.Errorf("%v: exit %d, stdout %q; want a usage error", args, code, out)
		}
	}
}

// TestManPages: the hidden __man command writes one man page per command,
// each with its examples, as make man does.
func TestManPages(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := run(t, "standup", "__man", dir)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	pages := []string{"standup"}
	for _, path := range visibleCommands(t) {
		pages = append(pages, "standup-"+strings.ReplaceAll(path, " ", "-"))
	}
	if got := strings.Count(out, "\n"); got != len(pages) {
		t.Errorf("wrote %d pages, want %d:\n%s", got, len(pages), out)
	}
	for _, page := range pages {
		data, err := os.ReadFile(filepath.Join(dir, page+".1"))
		if err != nil {
			t.Error(err)
			continue
		}
		man := string(data)
		for _, want := range []string{".TH " + page + " 1", ".SH NAME\n" + page + " \\-", ".SH SYNOPSIS", ".SH EXAMPLES", ".SH SEE ALSO"} {
			if !strings.Contains(man, want) {
				t.Errorf("%s.1 lacks %q:\n%s", page, want, man)
			}
		}
	}
	if _, err := exec.LookPath("man"); err == nil {
		cmd := exec.Command("man", "-l", filepath.Join(dir, "standup-tiers.1"))
		cmd.Env = append(os.Environ(), "MANPAGER=cat", "MANWIDTH=100")
		if text, err := cmd.Output(); err != nil || !strings.Contains(string(text), "standup tiers --path clusters/prod") {
			t.Errorf("man -l standup-tiers.1: %v\n%s", err, text)
		}
	}
}

// TestCompletionOffersWhatEachCommandTakes: bash completes -o with exactly
// the formats the printer registry gives each command (audit's own, and
// audit --from-cluster's or audit --fix's once that flag is typed), and
// --kinds with every
// word flux.ParseKind takes.
func TestCompletionOffersWhatEachCommandTakes(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		ciskip.Skipf(t, "bash is not installed")
	}
	script, _, _ := run(t, "standup", "completion", "bash")
	complete := func(words ...string) string {
		quoted := make([]string, len(words))
		for i, w := range words {
			quoted[i] = "'" + w + "'"
		}
		sh := script + "\nCOMP_WORDS=(standup " + strings.Join(quoted, " ") + " '')\nCOMP_CWORD=" + strconv.Itoa(len(words)+1) +
			"\n__standup_complete\necho \"${COMPREPLY[*]}\"\n"
		out, err := exec.Command("bash", "--norc", "-c", sh).CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v\n%s", words, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	for _, path := range append(visibleCommands(t), "audit --from-cluster", "audit --fix") {
		f, ok := formats().Of(path)
		if !ok || path == "completion" { // completion takes no -o
			continue
		}
		if got, want := complete(append(strings.Fields(path), "-o")...), strings.Join(f.Names, " "); got != want {
			t.Errorf("standup %s -o completes %q, want %q", path, got, want)
		}
	}
	if got := complete("audit", "--from-cluster", "--path", "x", "--output"); got != "yaml text json" {
		t.Errorf("audit --from-cluster --path x --output completes %q", got)
	}
	if got := complete("audit", "--fix", "--dry-run", "--output"); got != "text json diff" {
		t.Errorf("audit --fix --dry-run --output completes %q", got)
	}
	for _, path := range []string{"tiers", "resume"} {
		if got, want := complete(path, "--kinds"), strings.Join(flux.KindWords(), " "); got != want {
			t.Errorf("standup %s --kinds completes %q, want %q", path, got, want)
		}
	}
}

// TestReadmeInstallsCompletion: the README's Install section sets up
// completion with the completion command, which exists, not with
// urfave/cli's flag, which standup does not take.
func TestReadmeInstallsCompletion(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, install, ok := strings.Cut(string(readme), "\n## Install\n")
	if !ok {
		t.Fatal("README.md has no Install section")
	}
	install, _, _ = strings.Cut(install, "\n## ")
	if !strings.Contains(install, "source <(standup completion bash)") || strings.Contains(install, "generate-bash-completion") {
		t.Errorf("README's Install section does not source standup completion bash:\n%s", install)
	}
	if _, errOut, code := run(t, "standup", "completion", "bash"); code != ExitOK {
		t.Errorf("standup completion bash: exit %d: %s", code, errOut)
	}
	if _, _, code := run(t, "standup", "--generate-bash-completion"); code != ExitUsage {
		t.Errorf("standup --generate-bash-completion: exit %d, want a usage error", code)
	}
}

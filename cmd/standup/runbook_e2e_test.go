package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kubestandup/standup/pkg/crds"
)

const runbookPath = "../../docs/runbook.md"

// runbookBlock is one fenced shell block of the runbook. Blocks fenced
// ```sh {test} are run by TestRunbook in order and must exit 0;
// ```sh {test exit=N} must exit N. Other sh blocks are not run, but every
// line of theirs that starts with "standup " must parse.
type runbookBlock struct {
	Line     int
	Script   string
	Tested   bool
	WantExit int
}

// runbookBlocks returns the shell blocks (sh, bash, shell) of a Markdown
// document, in order. An unknown attribute in braces is an error, so that a
// typo cannot silently take a block out of the test.
func runbookBlocks(md string) ([]runbookBlock, error) {
	var out []runbookBlock
	var cur *runbookBlock // the shell block being read, nil in other blocks
	var body []string
	open := 0 // line of the open fence, 0 outside blocks
	for i, line := range strings.Split(md, "\n") {
		trimmed := strings.TrimSpace(line)
		fence := strings.HasPrefix(trimmed, "```")
		switch {
		case open > 0 && trimmed == "```":
			if cur != nil {
				cur.Script = strings.Join(body, "\n") + "\n"
				out = append(out, *cur)
			}
			open, cur, body = 0, nil, nil
		case open > 0:
			body = append(body, line)
		case fence:
			open = i + 1
			b, shell, err := parseFence(strings.TrimPrefix(trimmed, "```"), open)
			if err != nil {
				return nil, err
			}
			if shell {
				cur = &b
			}
		}
	}
	if open > 0 {
		return nil, fmt.Errorf("line %d: code block never closed", open)
	}
	return out, nil
}

// parseFence reads an info string such as `sh {test exit=1}`.
func parseFence(info string, line int) (runbookBlock, bool, error) {
	b := runbookBlock{Line: line}
	lang, attrs := info, ""
	if i := strings.IndexAny(info, " {"); i >= 0 {
		lang, attrs = info[:i], strings.TrimSpace(info[i:])
	}
	shell := lang == "sh" || lang == "bash" || lang == "shell"
	if attrs == "" {
		return b, shell, nil
	}
	if !shell || !strings.HasPrefix(attrs, "{") || !strings.HasSuffix(attrs, "}") {
		return b, false, fmt.Errorf("line %d: attributes %q: want ```sh {test} or ```sh {test exit=N}", line, attrs)
	}
	exitSet := false
	for _, f := range strings.Fields(attrs[1 : len(attrs)-1]) {
		switch {
		case f == "test":
			b.Tested = true
		case strings.HasPrefix(f, "exit="):
			n, err := strconv.Atoi(strings.TrimPrefix(f, "exit="))
			if err != nil {
				return b, false, fmt.Errorf("line %d: %s: %w", line, f, err)
			}
			b.WantExit, exitSet = n, true
		default:
			return b, false, fmt.Errorf("line %d: unknown attribute %q (want test, exit=N)", line, f)
		}
	}
	if exitSet && !b.Tested {
		return b, false, fmt.Errorf("line %d: exit=N without test", line)
	}
	return b, true, nil
}

func TestRunbookBlocks(t *testing.T) {
	tests := []struct {
		name    string
		md      string
		want    []runbookBlock
		wantErr string
	}{
		{
			name: "tested, expected failure, untested, other languages",
			md: "# T\n```sh {test}\nstandup check\nkubectl get ks\n```\ntext ```sh {test}``` inline\n" +
				"```sh {test exit=1}\nstandup check\n```\n```yaml\nkind: X\n```\n```sh\nstandup crds\n```\n```text\n```sh\n```\n",
			want: []runbookBlock{
				{Line: 2, Script: "standup check\nkubectl get ks\n", Tested: true},
				{Line: 7, Script: "standup check\n", Tested: true, WantExit: 1},
				{Line: 13, Script: "standup crds\n"},
			},
		},
		{name: "bash without a space before the braces", md: "```bash{test}\nls\n```\n", want: []runbookBlock{{Line: 1, Script: "ls\n", Tested: true}}},
		{name: "typo in an attribute", md: "```sh {tset}\nls\n```\n", wantErr: `unknown attribute "tset"`},
		{name: "exit without test", md: "```sh {exit=1}\nls\n```\n", wantErr: "exit=N without test"},
		{name: "attributes on yaml", md: "```yaml {test}\nkind: X\n```\n", wantErr: "want ```sh {test}"},
		{name: "unclosed", md: "```sh {test}\nls\n", wantErr: "never closed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := runbookBlocks(tt.md)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("blocks\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

// TestRunbook runs docs/runbook.md against the seed's stuck cluster, from
// a copy of the broken repository, with a freshly built standup on PATH.
func TestRunbook(t *testing.T) {
	md, err := os.ReadFile(runbookPath)
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := runbookBlocks(string(md))
	if err != nil {
		t.Fatalf("%s: %v", runbookPath, err)
	}
	// standupBinary is alone in its directory: that directory goes on PATH.
	bin := filepath.Dir(standupBinary(t))
	repo := filepath.Join(t.TempDir(), "homelab")
	if err := os.CopyFS(repo, os.DirFS(deadlockRepo)); err != nil {
		t.Fatal(err)
	}

	w := seedCluster(t, repo, "--requeue-dependency=2s")
	stuck(t, w)
	ran := 0
	for _, b := range blocks {
		if !b.Tested {
			continue
		}
		ran++
		code, out := runShell(t, b.Script, bin, repo, w.Kubeconfig)
		t.Logf("runbook line %d -> exit %d\n%s%s", b.Line, code, b.Script, runbookIndent(out))
		if code != b.WantExit {
			t.Fatalf("runbook block at line %d exited %d, want %d: the runbook and standup have drifted apart", b.Line, code, b.WantExit)
		}
	}
	if ran < 5 {
		t.Fatalf("only %d blocks of %s are marked {test}", ran, runbookPath)
	}

	for _, ks := range listKS(t, w) {
		if !isReady(&ks) {
			t.Errorf("after the runbook, Kustomization/%s/%s is not Ready: %v", ks.Namespace, ks.Name, ks.Status.Conditions)
		}
	}
	list := &apiextensionsv1.CustomResourceDefinitionList{}
	if err := w.Client.List(context.Background(), list); err != nil {
		t.Fatal(err)
	}
	var preApplied []string
	for _, c := range list.Items {
		if v, ok := c.Annotations[crds.PreAppliedForAnnotation]; ok {
			preApplied = append(preApplied, c.Name+" for "+v)
		}
	}
	if want := storageCRD + " for Kustomization/flux-system/platform-config"; len(preApplied) != 1 || preApplied[0] != want {
		t.Errorf("pre-applied CRDs %v, want exactly [%s]", preApplied, want)
	}
}

// runShell runs script with bash -euo pipefail from dir, with standup on
// PATH and KUBECONFIG set, and returns its exit status and output.
func runShell(t *testing.T, script, bin, dir, kubeconfig string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", "set -euo pipefail\n"+script)
	cmd.Dir = dir
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "KUBECONFIG=") && !strings.HasPrefix(kv, "PATH=") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "KUBECONFIG="+kubeconfig, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, string(out)
	case errors.As(err, &ee) && ctx.Err() == nil:
		return ee.ExitCode(), string(out)
	}
	t.Fatalf("bash: %v\n%s", err, out)
	return -1, ""
}

// TestRunbookUntestedCommandsParse runs every `standup ...` line of the
// blocks TestRunbook does not run, in-process, against a cluster that cannot
// be reached: a renamed command or flag is a usage error (exit 2); anything
// else fails on the connection. bash splits each line into words, as it
// would for the operator.
func TestRunbookUntestedCommandsParse(t *testing.T) {
	md, err := os.ReadFile(runbookPath)
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := runbookBlocks(string(md))
	if err != nil {
		t.Fatalf("%s: %v", runbookPath, err)
	}
	dir := filepath.Join(t.TempDir(), "homelab")
	if err := os.CopyFS(dir, os.DirFS(deadlockRepo)); err != nil {
		t.Fatal(err)
	}
	dead := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(dead, []byte(deadKubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBECONFIG", dead)
	t.Chdir(dir)
	n := 0
	for _, b := range blocks {
		for _, line := range strings.Split(b.Script, "\n") {
			line = strings.TrimSpace(line)
			if b.Tested || !strings.HasPrefix(line, "standup ") {
				continue
			}
			n++
			args := shellWords(t, line)
			var out, errOut bytes.Buffer
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			code := ExitCode(Run(ctx, args, Streams{In: strings.NewReader(""), Out: &out, Err: &errOut}), &errOut)
			cancel()
			t.Logf("%q -> exit %d: %s", args, code, strings.TrimSpace(errOut.String()))
			if code == ExitUsage {
				t.Errorf("runbook line %d: %q no longer parses:\n%s", b.Line, line, errOut.String())
			}
		}
	}
	if n == 0 {
		t.Error("no standup line in the untested blocks: the short version is gone?")
	}
}

// shellWords has bash split a `standup ...` line into its words (quotes,
// comments, expansions), without running standup.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	script := `standup() { printf '%s\0' standup "$@"; }` + "\n" + line
	out, err := exec.Command("bash", "-c", script).Output()
	if err != nil {
		t.Fatalf("bash cannot split %q: %v", line, err)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
}

// deadKubeconfig names a server nothing listens on.
const deadKubeconfig = `apiVersion: v1
kind: Config
clusters:
  - name: nowhere
    cluster: {server: "https://127.0.0.1:1"}
users:
  - name: nobody
    user: {token: none}
contexts:
  - name: nowhere
    context: {cluster: nowhere, user: nobody}
current-context: nowhere
`

func runbookIndent(s string) string {
	if s == "" {
		return ""
	}
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ") + "\n"
}

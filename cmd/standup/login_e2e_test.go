package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubestandup/standup/internal/testenv"
)

// runBare runs standup with args as typed, no --kubeconfig added: what it
// reads of KUBECONFIG and HOME is the test's environment.
func runBare(t *testing.T, args ...string) cliResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	err := Run(ctx, append([]string{"standup"}, args...), Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
	code := ExitCode(err, &errOut)
	t.Logf("standup %s -> exit %d\nstderr:\n%s", strings.Join(args, " "), code, errOut.String())
	return cliResult{Stdout: out.String(), Stderr: errOut.String(), Err: err, Code: code}
}

// splitKubeconfig writes the world's kubeconfig as kubectl users keep
// theirs: clusters and users in one file, contexts in another. Neither
// file alone names a usable cluster.
func splitKubeconfig(t *testing.T, w *testenv.World) (credentials, contexts string) {
	t.Helper()
	whole, err := clientcmd.LoadFromFile(w.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	creds := clientcmdapi.NewConfig()
	creds.Clusters, creds.AuthInfos = whole.Clusters, whole.AuthInfos
	ctxs := clientcmdapi.NewConfig()
	ctxs.Contexts, ctxs.CurrentContext = whole.Contexts, whole.CurrentContext
	dir := t.TempDir()
	credentials, contexts = filepath.Join(dir, "credentials"), filepath.Join(dir, "contexts")
	for path, cfg := range map[string]*clientcmdapi.Config{credentials: creds, contexts: ctxs} {
		if err := clientcmd.WriteToFile(*cfg, path); err != nil {
			t.Fatal(err)
		}
	}
	return credentials, contexts
}

// TestLoginAsKubectlDoes: standup logs in to the test world as kubectl
// would, through a KUBECONFIG list of two files (before, the flag read
// KUBECONFIG=a:b as one path: "kubeconfig a:b not found"), through
// --server and --token alone with no kubeconfig anywhere, and impersonates
// with --as and --as-group.
func TestLoginAsKubectlDoes(t *testing.T) {
	w := testenv.New(t, testenv.Options{NoController: true})
	ctx := context.Background()
	if err := w.CreateNamespace(ctx, "apps"); err != nil {
		t.Fatal(err)
	}
	create(t, w, testenv.KS{Namespace: "apps", Name: "web"})
	t.Setenv("HOME", t.TempDir())
	absent := filepath.Join(t.TempDir(), "absent")
	listed := func(t *testing.T, res cliResult) {
		t.Helper()
		if res.Code != ExitOK || !strings.Contains(res.Stdout, "apps/web") {
			t.Fatalf("exit %d, stdout:\n%s\nwant 0 and apps/web", res.Code, res.Stdout)
		}
	}

	t.Run("KUBECONFIG list", func(t *testing.T) {
		credentials, contexts := splitKubeconfig(t, w)
		t.Setenv("KUBECONFIG", strings.Join([]string{absent, credentials, contexts}, string(os.PathListSeparator)))
		listed(t, runBare(t, "tiers"))
		whole, err := clientcmd.LoadFromFile(w.Kubeconfig)
		if err != nil {
			t.Fatal(err)
		}
		listed(t, runBare(t, "tiers", "--context", whole.CurrentContext))
		res := runBare(t, "tiers", "--context", "nope")
		if line := errorLine(t, res.Stderr); res.Code != ExitFailure || !strings.Contains(line, `context "nope" not found in kubeconfig `+credentials+":"+contexts) {
			t.Errorf("exit %d, %q: want the context and both files named", res.Code, line)
		}
	})

	t.Run("--server and --token", func(t *testing.T) {
		t.Setenv("KUBECONFIG", absent)
		token, err := w.ServiceAccountToken(ctx, "ci", "standup", "cluster-admin")
		if err != nil {
			t.Fatal(err)
		}
		ca, err := w.CAFile()
		if err != nil {
			t.Fatal(err)
		}
		server := w.Config.Host
		listed(t, runBare(t, "tiers", "-s", server, "--token", token, "--certificate-authority", ca))
		listed(t, runBare(t, "tiers", "--server", server, "--token", token, "--insecure-skip-tls-verify"))
		// The token is what logs in: a wrong one is refused, and without
		// the CA the server's certificate is not trusted.
		for _, args := range [][]string{
			{"tiers", "--server", server, "--token", "wrong", "--certificate-authority", ca},
			{"tiers", "--server", server, "--token", token},
		} {
			if res := runBare(t, args...); res.Code == ExitOK {
				t.Errorf("%s: exit 0, want a refusal", strings.Join(args, " "))
			}
		}
		res := runBare(t, "tiers")
		if line := errorLine(t, res.Stderr); !strings.Contains(line, "no kubeconfig found") || !strings.Contains(line, absent) {
			t.Errorf("without --server: %q, want no kubeconfig found naming %s", line, absent)
		}
	})

	t.Run("--as and --as-group", func(t *testing.T) {
		t.Setenv("KUBECONFIG", w.Kubeconfig)
		res := runBare(t, "tiers", "--as", "nobody")
		if line := errorLine(t, res.Stderr); res.Code == ExitOK || !strings.Contains(line, `forbidden: standup needs "list" on kustomizations.kustomize.toolkit.fluxcd.io`) {
			t.Errorf("--as nobody: exit %d, %q; want refused for list", res.Code, line)
		}
		listed(t, runBare(t, "tiers", "--as", "nobody", "--as-group", "system:authenticated", "--as-group", "system:masters"))
	})
}

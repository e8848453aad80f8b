package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/kubestandup/standup/internal/testenv"
)

// worlds are this package's shared test worlds, one per distinct
// testenv.Options, each started by the first test that needs it and handed
// from test to test (testenv.Shared: put back to its baseline between two).
// Tests that stop or break a world (API server restarts, a killed
// controller, expired watches, Flux uninstalled) start their own with
// freshWorld.
var worlds testenv.Pool

func TestMain(m *testing.M) {
	flag.Parse()
	build, cancel := context.WithCancel(context.Background())
	if _, child := os.LookupEnv(childCaseEnv); !child && !testing.Short() {
		go buildStandupBinary(build)
	}
	defer removeStandupBinary()
	defer cancel()
	testenv.Main(m, &worlds)
}

// sharedWorld lends t the package's world for opts until t ends, and
// creates namespaces in it. Every shared world of this package runs with
// kube-apiserver's audit log on: the tests that read it need no restart,
// and the others lose nothing by it.
func sharedWorld(t *testing.T, opts testenv.Options, namespaces ...string) *testenv.World {
	t.Helper()
	opts.APIAudit = true
	w := worlds.Get(t, opts)
	createNamespaces(t, w, namespaces...)
	return w
}

// freshWorld starts a world of its own for t, for a test that stops or
// breaks it, and creates namespaces in it.
func freshWorld(t *testing.T, opts testenv.Options, namespaces ...string) *testenv.World {
	t.Helper()
	w := testenv.New(t, opts)
	createNamespaces(t, w, namespaces...)
	return w
}

func createNamespaces(t *testing.T, w *testenv.World, namespaces ...string) {
	t.Helper()
	for _, ns := range namespaces {
		if err := w.CreateNamespace(context.Background(), ns); err != nil {
			t.Fatal(err)
		}
	}
}

// childCaseEnv names, in a child process of the test binary, the one case
// of a test it runs (see inChildren).
const childCaseEnv = "STANDUP_TEST_CHILD_CASE"

// inChildren runs run(t, i) for every case i of the test t, each in a child
// process of this test binary, all at once, and reports each as a subtest
// of t. Run is a process entry point (urfave/cli's help flag and the
// process's loggers are global), so runs of it may overlap only in
// processes of their own; the children are the same race-detecting binary.
// For cases that mostly wait (a hung server, a timeout), this turns their
// sum into their maximum. In a child, only case i runs, in-process.
func inChildren(t *testing.T, names []string, run func(t *testing.T, i int)) {
	t.Helper()
	if c, ok := os.LookupEnv(childCaseEnv); ok {
		i, err := strconv.Atoi(c)
		if err != nil || i < 0 || i >= len(names) {
			t.Fatalf("%s=%q: want a case of %d", childCaseEnv, c, len(names))
		}
		t.Logf("case %d: %s", i, names[i])
		run(t, i)
		return
	}
	type result struct {
		out []byte
		err error
	}
	results := make([]chan result, len(names))
	for i := range names {
		results[i] = make(chan result, 1)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^"+regexp.QuoteMeta(t.Name())+"$", "-test.count=1", "-test.v")
			cmd.Env = append(os.Environ(), childCaseEnv+"="+strconv.Itoa(i))
			out, err := cmd.CombinedOutput()
			results[i] <- result{out, err}
		}()
	}
	for i, name := range names {
		t.Run(name, func(t *testing.T) {
			r := <-results[i]
			t.Logf("child process, case %d:\n%s", i, r.out)
			if r.err != nil || !bytes.Contains(r.out, []byte("--- PASS: ")) {
				t.Fatalf("case %d failed in its child process: %v", i, r.err)
			}
		})
	}
}

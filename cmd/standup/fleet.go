package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v2"
	"k8s.io/client-go/tools/clientcmd"
)

// Fleet: resume, crds and check bring up many clusters at once, one run
// of the single-cluster command per cluster, side by side (--max-clusters
// at a time). Each cluster keeps every rule of the single-cluster command
// (its own timeouts, --dry-run, names), gets its own outcome and exit
// code, and one cluster's failure or unreachability never stops the
// others; the command exits with the worst code.

// fleetCommands are the commands that take more than one cluster.
var fleetCommands = []string{"resume", "crds", "check"}

// fleetOptions are the flags that name the clusters beyond --context.
type fleetOptions struct {
	AllContexts   bool
	KubeconfigDir string
	MaxClusters   int
}

// fleetFlags are the fleet flags of resume, crds and check.
func fleetFlags(o *fleetOptions) []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "all-contexts", Destination: &o.AllContexts, Usage: "every context of the kubeconfig, one cluster each, side by side"},
		&cli.StringFlag{Name: "kubeconfig-dir", TakesFile: true, Destination: &o.KubeconfigDir, Usage: "every kubeconfig file in `DIR`, one cluster each (named after the file), side by side"},
		&cli.IntFlag{Name: "max-clusters", Value: 8, Destination: &o.MaxClusters, Usage: "walk at most `N` clusters at once"},
	}
}

// fleetTarget is one cluster of a fleet run: its name in the output, and
// the cluster flags that select it.
type fleetTarget struct {
	Name string
	g    globalOptions
}

// fleetTargets returns the clusters a command line names, or nil for a
// single cluster (the command runs as it always did).
func fleetTargets(g globalOptions, o fleetOptions) ([]fleetTarget, error) {
	sources := 0
	for _, on := range []bool{len(g.Contexts) > 1, o.AllContexts, o.KubeconfigDir != ""} {
		if on {
			sources++
		}
	}
	switch {
	case o.MaxClusters < 1:
		return nil, usageErrorf("--max-clusters %d: want 1 or more", o.MaxClusters)
	case sources > 1 || (sources == 1 && len(g.Contexts) == 1):
		return nil, usageErrorf("name the clusters one way: --context (more than once), --all-contexts or --kubeconfig-dir")
	case sources == 0:
		return nil, nil
	}
	var out []fleetTarget
	switch {
	case o.KubeconfigDir != "":
		entries, err := os.ReadDir(o.KubeconfigDir)
		if err != nil {
			return nil, fmt.Errorf("--kubeconfig-dir: %w", err)
		}
		for _, e := range entries {
			if e.IsDir() || strings.HasPrefix(e.Name(), ".") {
				continue
			}
			t := fleetTarget{Name: strings.TrimSuffix(e.Name(), filepath.Ext(e.Name())), g: g}
			t.g.Cluster.Kubeconfig = filepath.Join(o.KubeconfigDir, e.Name())
			t.g.Cluster.Context, t.g.FleetName = "", t.Name
			out = append(out, t)
		}
		if len(out) == 0 {
			return nil, usageErrorf("--kubeconfig-dir %s: no kubeconfig file in it", o.KubeconfigDir)
		}
	default:
		names := g.Contexts
		if o.AllContexts {
			rules := clientcmd.NewDefaultClientConfigLoadingRules()
			if g.Cluster.Kubeconfig != "" {
				rules.ExplicitPath = g.Cluster.Kubeconfig
			}
			cfg, err := rules.Load()
			if err != nil {
				return nil, fmt.Errorf("--all-contexts: %w", err)
			}
			names = nil
			for name := range cfg.Contexts {
				names = append(names, name)
			}
			slices.Sort(names)
			if len(names) == 0 {
				return nil, usageErrorf("--all-contexts: the kubeconfig has no context")
			}
		}
		for _, n := range names {
			t := fleetTarget{Name: n, g: g}
			t.g.Cluster.Context, t.g.Contexts, t.g.FleetName = n, []string{n}, n
			out = append(out, t)
		}
	}
	return out, nil
}

// withFleet runs run once for the single cluster, or once per cluster of
// the fleet the command line names.
func withFleet(ctx context.Context, g globalOptions, o fleetOptions, streams Streams, run func(context.Context, globalOptions, Streams) error) error {
	targets, err := fleetTargets(g, o)
	if err != nil {
		return err
	}
	if targets == nil {
		return run(ctx, g, streams)
	}
	return runFleet(ctx, g, o, targets, streams, run)
}

// fleetOutcome is one cluster's end.
type fleetOutcome struct {
	name string
	code int
	err  error
	took time.Duration
}

// runFleet runs run for every target, at most o.MaxClusters at once. Each
// cluster's stderr lines are prefixed with its name; its stdout too, in
// text, and in json every JSON value it writes gets a "cluster" field
// first (an NDJSON event, or a whole document on one line). Then a table
// of the outcomes on stderr, and the worst exit code.
func runFleet(ctx context.Context, g globalOptions, o fleetOptions, targets []fleetTarget, streams Streams, run func(context.Context, globalOptions, Streams) error) error {
	var mu sync.Mutex // one line at a time on the shared streams
	outcomes := make([]fleetOutcome, len(targets))
	sem := make(chan struct{}, o.MaxClusters)
	var wg sync.WaitGroup
	for i, t := range targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				outcomes[i] = fleetOutcome{name: t.Name, code: ExitInterrupted, err: ctx.Err()}
				return
			}
			defer func() { <-sem }()
			errW := &prefixWriter{mu: &mu, w: streams.Err, prefix: "[" + t.Name + "] "}
			var outW io.Writer = &prefixWriter{mu: &mu, w: streams.Out, prefix: t.Name + ": "}
			var tagger *jsonTagger
			if g.Output == "json" {
				tagger = newJSONTagger(&mu, streams.Out, t.Name)
				outW = tagger
			}
			start := time.Now()
			err := run(ctx, t.g, Streams{In: streams.In, Out: outW, Err: errW})
			if tagger != nil {
				tagger.Close()
			}
			errW.Flush()
			if p, ok := outW.(*prefixWriter); ok {
				p.Flush()
			}
			code := codeOf(err)
			if err != nil && !isPrinted(err) {
				mu.Lock()
				fmt.Fprintf(streams.Err, "[%s] standup: %s\n", t.Name, strings.TrimSpace(err.Error()))
				mu.Unlock()
			}
			outcomes[i] = fleetOutcome{name: t.Name, code: code, err: err, took: time.Since(start)}
		}()
	}
	wg.Wait()
	worst := ExitOK
	var failed []string
	rows := [][]string{{"CLUSTER", "EXIT", "TOOK", "RESULT"}}
	for _, oc := range outcomes {
		result := "ok"
		if oc.err != nil {
			result = firstLine(strings.TrimSpace(oc.err.Error()))
			failed = append(failed, fmt.Sprintf("%s (exit %d)", oc.name, oc.code))
		}
		worst = max(worst, oc.code)
		rows = append(rows, []string{oc.name, fmt.Sprint(oc.code), oc.took.Round(100 * time.Millisecond).String(), result})
	}
	if !g.Quiet || worst != ExitOK {
		fmt.Fprint(streams.Err, "\n"+alignRows(rows))
	}
	if worst == ExitOK {
		return nil
	}
	return &fleetError{code: worst, failed: failed, total: len(targets)}
}

// fleetError is a fleet run's outcome: the worst exit code of its
// clusters.
type fleetError struct {
	code   int
	failed []string
	total  int
}

func (e *fleetError) Error() string {
	return fmt.Sprintf("%d of %d clusters failed: %s", len(e.failed), e.total, strings.Join(e.failed, ", "))
}

// isPrinted reports whether err was printed by the command already.
func isPrinted(err error) bool { return errors.As(err, new(*printedError)) }

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// alignRows renders rows as aligned columns.
func alignRows(rows [][]string) string {
	width := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], len(c))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		for i, c := range r {
			if i == len(r)-1 {
				b.WriteString(c)
				break
			}
			b.WriteString(c + strings.Repeat(" ", width[i]-len(c)+2))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// prefixWriter writes whole lines to w, each after prefix, holding mu for
// each so that clusters' lines never interleave.
type prefixWriter struct {
	mu     *sync.Mutex
	w      io.Writer
	prefix string
	buf    []byte
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.buf = append(p.buf, b...)
	for {
		i := bytes.IndexByte(p.buf, '\n')
		if i < 0 {
			return len(b), nil
		}
		p.mu.Lock()
		_, err := io.WriteString(p.w, p.prefix+string(p.buf[:i+1]))
		p.mu.Unlock()
		p.buf = p.buf[i+1:]
		if err != nil {
			return len(b), err
		}
	}
}

// Flush writes a last line without its newline.
func (p *prefixWriter) Flush() {
	if len(p.buf) > 0 {
		_, _ = p.Write([]byte("\n"))
	}
}

// jsonTagger re-writes every JSON value written to it on one line, with
// "cluster" as its first field.
type jsonTagger struct {
	pw   *io.PipeWriter
	done chan struct{}
}

func newJSONTagger(mu *sync.Mutex, w io.Writer, cluster string) *jsonTagger {
	pr, pw := io.Pipe()
	t := &jsonTagger{pw: pw, done: make(chan struct{})}
	name, _ := json.Marshal(cluster)
	go func() {
		defer close(t.done)
		dec := json.NewDecoder(bufio.NewReader(pr))
		for {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				_, _ = io.Copy(io.Discard, pr)
				return
			}
			var compact bytes.Buffer
			if err := json.Compact(&compact, raw); err != nil {
				continue
			}
			line := compact.Bytes()
			if len(line) > 1 && line[0] == '{' {
				sep := ","
				if line[1] == '}' {
					sep = ""
				}
				line = append([]byte(`{"cluster":`+string(name)+sep), line[1:]...)
			}
			mu.Lock()
			_, _ = w.Write(append(line, '\n'))
			mu.Unlock()
		}
	}()
	return t
}

func (t *jsonTagger) Write(b []byte) (int, error) { return t.pw.Write(b) }

// Close ends the stream and waits until every value is written.
func (t *jsonTagger) Close() {
	_ = t.pw.Close()
	<-t.done
}

// recordFor is the record file of one cluster of a fleet: FILE becomes
// FILE-CLUSTER before its extension (prod.ndjson: prod-eu-1.ndjson), so
// that each cluster has its own record; unchanged for a single cluster.
func recordFor(file, cluster string) string {
	if file == "" || cluster == "" {
		return file
	}
	safe := strings.Map(func(r rune) rune {
		if r == '/' || r == os.PathSeparator || r == ':' {
			return '_'
		}
		return r
	}, cluster)
	ext := filepath.Ext(file)
	return strings.TrimSuffix(file, ext) + "-" + safe + ext
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubestandup/standup/internal/testenv"
	"github.com/kubestandup/standup/pkg/record"
)

// Issue 32: the incident record, round trip. A deadlock repair is
// recorded (resume --record FILE), then reported (report FILE): the
// report's writes equal the API server's own audit of standup's writes,
// its decisions and changes say what the walk did, and no Secret's value
// is anywhere in the record.
func TestRecordRoundTripOnTheDeadlock(t *testing.T) {
	ctx := context.Background()
	p := newProofWorld(t, cold, false)
	const secretValue = "s3cr3t-value-that-must-not-leak"
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "credentials", Namespace: p.ns}, StringData: map[string]string{"password": secretValue}}
	if err := p.w.Client.Create(ctx, secret); err != nil {
		t.Fatal(err)
	}
	p.startOperator(time.Second)
	wit := witnessFrom(t, p.w)
	file := filepath.Join(t.TempDir(), "incident.ndjson")
	res := runWith(ctx, t, runSpec{kubeconfig: p.w.Kubeconfig}, "resume", "--crds", p.bundle, "--config", p.config, "--record", file, "-o", "json")
	p.assertRepaired(t, res, proofStuck, "after")

	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte(secretValue)) {
		t.Fatal("the record holds the Secret's value")
	}
	rep := runWith(ctx, t, runSpec{}, "report", file, "-o", "json")
	if rep.Code != ExitOK {
		t.Fatalf("report exit %d: %v\n%s", rep.Code, rep.Err, rep.Stderr)
	}
	var doc struct {
		SchemaVersion int `json:"schemaVersion"`
		record.Report
	}
	if err := json.Unmarshal([]byte(rep.Stdout), &doc); err != nil {
		t.Fatalf("report -o json: %v\n%s", err, rep.Stdout)
	}
	assertReportWritesAudited(t, doc.Writes, wit)
	if doc.Summary == nil || doc.Summary.Ready != 2 || doc.Header == nil || !slices.Contains(doc.Header.Command, "resume") {
		t.Errorf("summary %+v, header %+v", doc.Summary, doc.Header)
	}
	proven, preApplied := false, false
	for _, d := range doc.Decisions {
		if d.Proof != nil && strings.HasPrefix(d.Message, "cold-start deadlock proven") {
			proven = true
		}
	}
	for _, c := range doc.Changes {
		if c.Action == "pre-apply-crds" && strings.Contains(c.Message, cogsCRD) {
			preApplied = true
		}
	}
	if !proven || !preApplied {
		t.Errorf("the report's decisions (%d) and changes (%d) lack the proof or the pre-apply:\n%s", len(doc.Decisions), len(doc.Changes), rep.Stdout)
	}
	if len(doc.Timeline.Bars) != 2 || len(doc.CriticalPath) == 0 {
		t.Errorf("timeline %+v, critical path %v: want the two Kustomizations", doc.Timeline.Bars, doc.CriticalPath)
	}
	svg := filepath.Join(t.TempDir(), "bringup.svg")
	md := runWith(ctx, t, runSpec{}, "report", file, "-o", "markdown", "--svg", svg)
	if md.Code != ExitOK || !strings.Contains(md.Stdout, "```mermaid\ngantt") || !strings.Contains(md.Stdout, "## What standup changed") {
		t.Errorf("report -o markdown: exit %d\n%s", md.Code, md.Stdout)
	}
	if b, err := os.ReadFile(svg); err != nil || !bytes.HasPrefix(b, []byte("<svg")) {
		t.Errorf("--svg: %v", err)
	}
}

// assertReportWritesAudited fails t unless a report's writes equal the API
// server's audit of standup's writes since wit began, counted as the
// benchmarks count requests: verb and resource.group, its Events included
// (the record holds their requests too).
func assertReportWritesAudited(t *testing.T, writes map[string]int, wit *witness) {
	t.Helper()
	audited := map[string]int{}
	for _, e := range wit.allWrites(t) {
		resource := e.ObjectRef.Resource
		if e.ObjectRef.APIGroup != "" {
			resource += "." + e.ObjectRef.APIGroup
		}
		audited[e.Verb+" "+resource]++
	}
	if len(audited) == 0 || !equalCounts(writes, audited) {
		t.Errorf("report's writes %v, the API server audited %v", writes, audited)
	}
}

// The round trip on the HelmRelease world: a suspended mixed graph
// (Kustomizations applying HelmReleases, a chart with CRDs and a HelmRelease
// chain) walked by resume --record, then reported. The report's writes equal
// the audit of standup's writes (the Kustomizations' resumes and the
// HelmReleases' reconcile requests among them), every node has its bar, and
// its changes name the HelmRelease standup asked to reconcile.
func TestRecordRoundTripOnTheHelmReleaseWorld(t *testing.T) {
	ctx := context.Background()
	ns := testenv.UniqueName("hrrec")
	w := helmWorld(t, testenv.Options{}, []string{"plain", "gadgets"}, ns)
	seedMixedGraph(t, w, ns)
	wit := witnessFrom(t, w)
	file := filepath.Join(t.TempDir(), "helm.ndjson")
	res := runCLI(t, w, "resume", "-n", ns, "--record", file, "--node-timeout", "2m", "-o", "json")
	if res.Code != ExitOK {
		t.Fatalf("resume exit %d: %v\n%s", res.Code, res.Err, res.Stdout)
	}
	rep := runWith(ctx, t, runSpec{}, "report", file, "-o", "json")
	if rep.Code != ExitOK {
		t.Fatalf("report exit %d: %v\n%s", rep.Code, rep.Err, rep.Stderr)
	}
	var doc struct {
		record.Report
	}
	if err := json.Unmarshal([]byte(rep.Stdout), &doc); err != nil {
		t.Fatalf("report -o json: %v\n%s", err, rep.Stdout)
	}
	assertReportWritesAudited(t, doc.Writes, wit)
	if doc.Writes["patch helmreleases.helm.toolkit.fluxcd.io"] == 0 {
		t.Errorf("report's writes %v: no HelmRelease patch, yet gadgets found db not Ready and needed a request", doc.Writes)
	}
	if doc.Summary == nil || doc.Summary.Ready != 5 {
		t.Errorf("summary %+v: want 5 nodes Ready", doc.Summary)
	}
	if len(doc.Timeline.Bars) != 5 {
		t.Errorf("timeline has %d bars, want one per node (5): %+v", len(doc.Timeline.Bars), doc.Timeline.Bars)
	}
	changed := map[string]bool{}
	for _, c := range doc.Changes {
		if c.Node != nil {
			changed[c.Node.String()] = true
		}
	}
	for _, id := range []string{"HelmRelease/" + ns + "/gadgets", "Kustomization/" + ns + "/infra"} {
		if !changed[id] {
			t.Errorf("the report's changes do not name %s: %+v", id, doc.Changes)
		}
	}
}

func equalCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// A record cut off by SIGKILL mid-walk still reports up to that point:
// the walk waits for an operator that never comes (a Gizmo exists), and
// the built binary is killed once the record holds the suspicion.
func TestRecordCutOffBySIGKILLStillReports(t *testing.T) {
	bin := standupBinary(t)
	p := newProofWorld(t, cold, true)
	file := filepath.Join(t.TempDir(), "killed.ndjson")
	cmd := exec.Command(bin, "--kubeconfig", p.w.Kubeconfig, "resume", "--crds", p.bundle, "--config", p.config, "--record", file, "-o", "json")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.After(2 * time.Minute)
	for suspected := false; !suspected; {
		select {
		case err := <-exited:
			t.Fatalf("the walk ended before the kill: %v", err)
		case <-deadline:
			_ = cmd.Process.Kill()
			t.Fatal("the record never showed the suspicion")
		case <-time.After(200 * time.Millisecond):
		}
		data, _ := os.ReadFile(file)
		suspected = bytes.Contains(data, []byte(`"message":"suspected cold-start deadlock`))
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-exited
	rep := runWith(context.Background(), t, runSpec{}, "report", file)
	if rep.Code != ExitOK {
		t.Fatalf("report exit %d: %v\n%s", rep.Code, rep.Err, rep.Stderr)
	}
	for _, want := range []string{"outcome:    unknown: the record ends before the walk did", p.ns + "/" + proofStuck, "suspected cold-start deadlock"} {
		if !strings.Contains(rep.Stdout, want) {
			t.Errorf("the report of a killed run lacks %q:\n%s", want, rep.Stdout)
		}
	}
}

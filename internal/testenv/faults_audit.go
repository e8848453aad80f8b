package testenv

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	"k8s.io/client-go/rest"
)

// auditPolicy records every request once it completes: writes with their
// request body (the patch a client sent), everything else without.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived, ResponseStarted]
rules:
- level: Request
  verbs: [create, update, patch, delete, deletecollection]
- level: Metadata
`

// auditMarkerAgent is the user agent of the request SyncAPIAudit sends.
const auditMarkerAgent = "standup-testenv-audit-marker"

// EnableAPIAudit restarts kube-apiserver with an audit log (--audit-log-path)
// that records every request when it completes, with the request body of
// every write. Tests read it with APIAuditLog: it is the API server's own
// record of what a client did, independent of the client. Extra flags
// ("--name=value") are passed on as RestartAPIServer does.
func (w *World) EnableAPIAudit(ctx context.Context, flags ...string) error {
	audit, err := w.auditFlags()
	if err != nil {
		return err
	}
	// kube-apiserver's first stop waits for open watches (up to the stop
	// timeout); with kustomize-controller stopped there are none.
	if w.Controller != nil {
		w.Controller.Stop()
	}
	err = w.RestartAPIServer(ctx, append(audit, flags...)...)
	if err != nil || w.Controller == nil {
		return err
	}
	return w.Controller.Start(ctx)
}

// auditFlags writes the audit policy and returns kube-apiserver's flags
// for the audit log.
func (w *World) auditFlags() ([]string, error) {
	policy := filepath.Join(w.Dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(auditPolicy), 0o600); err != nil {
		return nil, fmt.Errorf("audit policy: %w", err)
	}
	return []string{
		"--audit-policy-file=" + policy,
		"--audit-log-path=" + w.auditLogPath(),
		"--audit-log-format=json",
		"--audit-log-mode=blocking",
		"--audit-log-maxsize=0",
	}, nil
}

func (w *World) auditLogPath() string { return filepath.Join(w.Dir, "audit.log") }

// APIAuditLog returns every audit event logged so far, in the order the API
// server wrote them. Call SyncAPIAudit first to be sure the events of requests
// that just completed are in.
func (w *World) APIAuditLog() ([]auditv1.Event, error) {
	events, _, err := w.APIAuditLogSince(0)
	return events, err
}

// APIAuditLogSince returns the audit events logged from byte offset on, and
// the offset to read from next time (just after the last whole line). A
// shared world's log holds every earlier test's requests too: reading from
// an offset keeps a test to its own, at the cost of its own alone.
func (w *World) APIAuditLogSince(offset int64) ([]auditv1.Event, int64, error) {
	f, err := os.Open(w.auditLogPath())
	if err != nil {
		return nil, offset, fmt.Errorf("audit log (call EnableAPIAudit first): %w", err)
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return nil, offset, fmt.Errorf("audit log: %w", err)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, offset, fmt.Errorf("audit log: %w", err)
	}
	// The API server may be writing the last line right now.
	whole := bytes.LastIndexByte(data, '\n') + 1
	var events []auditv1.Event
	sc := bufio.NewScanner(bytes.NewReader(data[:whole]))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e auditv1.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			continue
		}
		events = append(events, e)
	}
	return events, offset + int64(whole), sc.Err()
}

// APIAuditLogSize returns the audit log's size: the offset from which
// APIAuditLogSince returns what is logged from now on (call SyncAPIAudit
// first, so that nothing that completed before is logged after).
func (w *World) APIAuditLogSize() (int64, error) {
	fi, err := os.Stat(w.auditLogPath())
	if err != nil {
		return 0, fmt.Errorf("audit log (call EnableAPIAudit first): %w", err)
	}
	return fi.Size(), nil
}

// SyncAPIAudit sends one marker request and waits until the audit log holds
// it: every request that completed before has been logged by then.
func (w *World) SyncAPIAudit(ctx context.Context) error {
	cfg := rest.CopyConfig(w.Config)
	cfg.UserAgent = auditMarkerAgent
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return fmt.Errorf("audit sync: %w", err)
	}
	defer hc.CloseIdleConnections()
	id := UniqueName("marker")
	// The marker is logged after it is sent: only the log from here on
	// need be read for it.
	from, _ := w.APIAuditLogSize()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(cfg.Host, "/")+"/api/v1/namespaces/default?audit-marker="+id, nil)
	if err != nil {
		return err
	}
	req.Header.Set("User-Agent", auditMarkerAgent)
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("audit sync: %w", err)
	}
	resp.Body.Close()
	for {
		events, next, err := w.APIAuditLogSince(from)
		if err != nil {
			return err
		}
		for _, e := range events {
			if e.UserAgent == auditMarkerAgent && strings.Contains(e.RequestURI, id) {
				return nil
			}
		}
		from = next
		select {
		case <-ctx.Done():
			return fmt.Errorf("audit sync: marker %s never logged: %w", id, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

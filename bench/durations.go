package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// finishedPrefix starts the message kustomize-controller logs after a
// reconcile that left the Kustomization Ready:
// "Reconciliation finished in 5.17s, next run in 10m0s".
const finishedPrefix = "Reconciliation finished in "

// logLine is the part of one kustomize-controller JSON log line we read.
type logLine struct {
	Msg            string `json:"msg"`
	ControllerKind string `json:"controllerKind"`
	Name           string `json:"name"`
	Namespace      string `json:"namespace"`
	Kustomization  *struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"Kustomization"`
}

// ReconcileDurations reads kustomize-controller's JSON log (--log-encoding=json)
// and returns, for each Kustomization ("namespace/name"), the duration of
// its first successful reconcile: for an object that started un-Ready, the
// reconcile that turned it Ready. Lines that are not JSON, or not about a
// Kustomization, are skipped; a finished message whose duration does not
// parse is an error, since the bound would silently be wrong.
func ReconcileDurations(log string) (map[string]time.Duration, error) {
	return firstDurations(log, finishedPrefix)
}

// FailedDurations is ReconcileDurations for failed reconciles ("Reconciliation
// failed after 12ms, next try in 2m0s"): the first per Kustomization. On a
// deadlock, that is the pass that reveals it, which no tool can avoid.
func FailedDurations(log string) (map[string]time.Duration, error) {
	return firstDurations(log, failedPrefix)
}

// firstDurations returns, per Kustomization, the duration of the first
// log message that starts with prefix followed by a duration.
func firstDurations(log, prefix string) (map[string]time.Duration, error) {
	out := map[string]time.Duration{}
	sc := bufio.NewScanner(strings.NewReader(log))
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for sc.Scan() {
		var l logLine
		if !strings.Contains(sc.Text(), prefix) || json.Unmarshal(sc.Bytes(), &l) != nil {
			continue
		}
		rest, ok := strings.CutPrefix(l.Msg, prefix)
		if !ok || (l.ControllerKind != "" && l.ControllerKind != "Kustomization") {
			continue
		}
		ns, name := l.Namespace, l.Name
		if l.Kustomization != nil {
			ns, name = l.Kustomization.Namespace, l.Kustomization.Name
		}
		text, _, _ := strings.Cut(rest, ",")
		d, err := time.ParseDuration(text)
		if err != nil {
			return nil, fmt.Errorf("Kustomization/%s/%s log %q: %w", ns, name, l.Msg, err)
		}
		if _, seen := out[ns+"/"+name]; !seen {
			out[ns+"/"+name] = d
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("kustomize-controller log: %w", err)
	}
	return out, nil
}

// InNamespace returns the durations of durations (keyed "namespace/name")
// whose namespace is ns, keyed by name alone.
func InNamespace(durations map[string]time.Duration, ns string) map[string]time.Duration {
	out := map[string]time.Duration{}
	for key, d := range durations {
		if name, ok := strings.CutPrefix(key, ns+"/"); ok {
			out[name] = d
		}
	}
	return out
}

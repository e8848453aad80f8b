package main

import (
	"net/http"
	"testing"
)

// TestOperatorFlagsRefuseWhatCannotBound: a negative --operator-timeout,
// or an --operator-quiet that is not positive, is a usage error in one
// line naming the flag, before any request, in resume and crds alike.
func TestOperatorFlagsRefuseWhatCannotBound(t *testing.T) {
	kubeconfig, requests := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusServiceUnavailable)
	})
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"resume", "--operator-timeout", "-1s"}, "standup: --operator-timeout -1s: want a duration, or 0 for the trigger's own\n"},
		{[]string{"resume", "--operator-quiet", "0s"}, "standup: --operator-quiet 0s: want a positive duration\n"},
		{[]string{"crds", "--operator-quiet", "-5s"}, "standup: --operator-quiet -5s: want a positive duration\n"},
	}
	for _, tt := range tests {
		out, errOut, code := run(t, "standup", append([]string{"--kubeconfig", kubeconfig}, tt.args...)...)
		if code != ExitUsage || out != "" || errOut != tt.want {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", tt.args, code, out, errOut, tt.want)
		}
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d API requests", n)
	}
}

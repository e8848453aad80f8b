package kube

import "testing"

func TestContextName(t *testing.T) {
	good := writeFile(t, t.TempDir(), "config", kubeconfig)
	tests := []struct {
		name  string
		flags ClusterFlags
		want  string
	}{
		{name: "the current context", flags: ClusterFlags{Kubeconfig: good}, want: "ctx"},
		{name: "--context", flags: ClusterFlags{Kubeconfig: good, Context: "prod"}, want: "prod"},
		{name: "no kubeconfig", flags: ClusterFlags{Kubeconfig: good + ".missing"}, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ContextName(tt.flags); got != tt.want {
				t.Errorf("ContextName() = %q, want %q", got, tt.want)
			}
		})
	}
}

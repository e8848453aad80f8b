package wait

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

func TestEvalReadyExpr(t *testing.T) {
	dep := map[string]any{
		"metadata": map[string]any{"name": "infra", "labels": map[string]any{"tier": "ready"}},
		"status":   map[string]any{"lastAppliedRevision": "main@sha1:abc", "conditions": []any{map[string]any{"type": "Ready", "status": "False"}}},
	}
	self := map[string]any{"metadata": map[string]any{"name": "apps"}, "spec": map[string]any{"path": "./apps"}}
	tests := []struct {
		name    string
		expr    string
		want    bool
		invalid bool
		evalErr bool
	}{
		{name: "label", expr: "dep.metadata.labels.tier == 'ready'", want: true},
		{name: "self and dep", expr: "self.metadata.name == 'apps' && dep.metadata.name == 'infra'", want: true},
		{name: "condition says not ready", expr: "dep.status.conditions.exists(c, c.type == 'Ready' && c.status == 'True')", want: false},
		{name: "missing field is an evaluation error", expr: "dep.status.missing == 'x'", evalErr: true},
		{name: "not a bool", expr: "dep.metadata.name", invalid: true},
		{name: "syntax", expr: "dep.metadata.(", invalid: true},
	}
	cache := exprCache{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := cache.EvalReadyExpr(context.Background(), tt.expr, self, dep)
			var invalid *ReadyExprError
			switch {
			case tt.invalid:
				if !errors.As(err, &invalid) {
					t.Fatalf("err = %v, want a ReadyExprError", err)
				}
			case tt.evalErr:
				if err == nil || errors.As(err, &invalid) {
					t.Fatalf("err = %v, want an evaluation error", err)
				}
			case err != nil || got != tt.want:
				t.Fatalf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func withExpr(o flux.Object, expr string) flux.Object {
	o.DependsOn[0].ReadyExpr = expr
	return o
}

func raw(o flux.Object, labels map[string]any) flux.Object {
	o.Raw = map[string]any{"metadata": map[string]any{"name": o.ID.Name, "labels": labels}}
	return o
}

func TestWalkerHonoursReadyExpr(t *testing.T) {
	const expr = "has(dep.metadata.labels.go) && dep.metadata.labels.go == 'yes'"
	tests := []struct {
		name     string
		opts     Options
		dep      flux.Object
		expr     string
		wantKick bool
		wantFail bool
	}{
		{name: "true while the dependency is not ready: Flux releases, so does standup",
			dep: raw(node("dep", false), map[string]any{"go": "yes"}), expr: expr, wantKick: true},
		{name: "false while the dependency is ready: Flux holds, so does standup",
			dep: raw(readyAt(node("dep", false), ""), map[string]any{}), expr: expr},
		{name: "additive: true but the dependency is not ready",
			opts: Options{AdditiveCELDependencyCheck: true},
			dep:  raw(node("dep", false), map[string]any{"go": "yes"}), expr: expr},
		{name: "invalid expression fails the dependent",
			dep: raw(readyAt(node("dep", false), ""), nil), expr: "dep.metadata.(", wantFail: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dependent := raw(withExpr(node("app", false, "dep"), tt.expr), nil)
			sel := Options{Selection: tiers.Selection{Only: []string{"app"}, Exclude: []string{"dep"}}}
			sel.AdditiveCELDependencyCheck = tt.opts.AdditiveCELDependencyCheck
			w := newTestWalker(sel, tt.dep, dependent)
			act, _, _ := w.Step(t0.Add(time.Second))
			kicked := len(act) == 1 && act[0].Node == ksID("app")
			if kicked != tt.wantKick {
				t.Fatalf("kicked = %v (actions %+v), want %v", kicked, act, tt.wantKick)
			}
			if p, _ := w.Phase(ksID("app")); (p == PhaseFailed) != tt.wantFail {
				t.Fatalf("phase = %s, want failed=%v", p, tt.wantFail)
			}
		})
	}
}

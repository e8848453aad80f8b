package wait

import (
	"context"
	"fmt"

	"github.com/fluxcd/pkg/runtime/cel"
	celtypes "github.com/google/cel-go/common/types"
)

// ReadyExprError reports a dependsOn readyExpr that does not compile: Flux
// stalls the dependent on it, so standup fails the node rather than wait.
type ReadyExprError struct {
	Expr string
	Err  error
}

// Error names the expression and why it does not compile.
func (e *ReadyExprError) Error() string {
	return fmt.Sprintf("invalid readyExpr %q: %v", e.Expr, e.Err)
}

func (e *ReadyExprError) Unwrap() error { return e.Err }

// exprCache keeps compiled readyExprs: a graph repeats the same few.
type exprCache map[string]*cel.Expression

// EvalReadyExpr evaluates a dependsOn readyExpr the way kustomize-controller
// does: a CEL expression returning bool, with the dependent as `self` and
// the dependency as `dep`, both as unstructured maps. A compile error is a
// *ReadyExprError; an evaluation error (a missing field, say) means not
// ready, as Flux retries it.
func (c exprCache) EvalReadyExpr(ctx context.Context, expr string, self, dep map[string]any) (bool, error) {
	compiled, ok := c[expr]
	if !ok {
		var err error
		compiled, err = cel.NewExpression(expr, cel.WithCompile(), cel.WithOutputType(celtypes.BoolType), cel.WithStructVariables("self", "dep"))
		if err != nil {
			return false, &ReadyExprError{Expr: expr, Err: err}
		}
		c[expr] = compiled
	}
	return compiled.EvaluateBoolean(ctx, map[string]any{"self": self, "dep": dep})
}

package audit

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubestandup/standup/pkg/render"
)

// isBuiltin reports whether gk is served by every Kubernetes API server.
func isBuiltin(gk GroupKind) bool { return render.IsBuiltin(schema.GroupKind(gk)) }

// isFlux reports whether gk is one of Flux's own kinds.
func isFlux(gk GroupKind) bool { return render.IsFlux(schema.GroupKind(gk)) }

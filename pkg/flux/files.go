package flux

import (
	"slices"

	"github.com/kubestandup/standup/pkg/tiers"
)

// Nodes returns the graph nodes of objs, in order.
func Nodes(objs []Object) []tiers.Node {
	nodes := make([]tiers.Node, len(objs))
	for i, o := range objs {
		nodes[i] = o.Node
	}
	return nodes
}

// DeclaringFiles names the files (Object.File, read offline) that declare
// the dangling dependencies, each once, in the order of missing; nil when
// none is known, as for objects read live.
func DeclaringFiles(objs []Object, missing []tiers.MissingDependency) []string {
	file := map[tiers.ID]string{}
	for _, o := range objs {
		file[o.ID] = o.File
	}
	var files []string
	for _, m := range missing {
		if f := file[m.Dependent]; f != "" && !slices.Contains(files, f) {
			files = append(files, f)
		}
	}
	return files
}

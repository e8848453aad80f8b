// Command goaltable prints the goals table of docs/benchmarks.md, built from
// the page's generated scenario blocks: scripts/bench-coldstart.sh splices
// its output between the page's <!-- bench:goals begin/end --> markers.
//
//	go run ./internal/benchdoc/goaltable docs/benchmarks.md
package main

import (
	"fmt"
	"os"

	"github.com/kubestandup/standup/internal/benchdoc"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: goaltable docs/benchmarks.md")
		os.Exit(2)
	}
	doc, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "goaltable:", err)
		os.Exit(1)
	}
	rows, err := benchdoc.GoalsOfDoc(string(doc))
	if err != nil {
		fmt.Fprintf(os.Stderr, "goaltable: %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
	fmt.Print(benchdoc.GoalsMarkdown(rows))
}

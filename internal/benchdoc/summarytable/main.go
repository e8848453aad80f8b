// Command summarytable prints the README's summary of the cold-start
// benchmarks, built from the generated scenario blocks of
// docs/benchmarks.md: scripts/bench-coldstart.sh splices its output between
// the README's <!-- bench:summary begin/end --> markers.
//
//	go run ./internal/benchdoc/summarytable docs/benchmarks.md
package main

import (
	"fmt"
	"os"

	"github.com/kubestandup/standup/internal/benchdoc"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: summarytable docs/benchmarks.md")
		os.Exit(2)
	}
	doc, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "summarytable:", err)
		os.Exit(1)
	}
	rows, err := benchdoc.SummaryOfDoc(string(doc))
	if err != nil {
		fmt.Fprintf(os.Stderr, "summarytable: %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
	if len(rows) == 0 {
		fmt.Fprintf(os.Stderr, "summarytable: %s: no scenario block with a table of contenders\n", os.Args[1])
		os.Exit(1)
	}
	fmt.Print(benchdoc.SummaryMarkdown(rows))
}

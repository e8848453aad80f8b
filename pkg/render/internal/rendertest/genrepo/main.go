package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/kubestandup/standup/pkg/render/internal/rendertest"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "genrepo:", err)
		os.Exit(2)
	}
}

// run writes the repository its arguments (SHAPE N DIR) name.
func run(args []string) error {
	if len(args) != 3 {
		return fmt.Errorf("usage: genrepo scale|replacements N DIR")
	}
	n, err := strconv.Atoi(args[1])
	if err != nil || n < 1 {
		return fmt.Errorf("N %q is not a positive number", args[1])
	}
	var files map[string]string
	switch args[0] {
	case "scale":
		files = rendertest.ScaleFiles(n)
	case "replacements":
		files = rendertest.ReplacementsFiles(n)
	default:
		return fmt.Errorf("shape %q: want scale or replacements", args[0])
	}
	for name, content := range files {
		path := filepath.Join(args[2], filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

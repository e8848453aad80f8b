package hygiene

import (
	"context"
	"fmt"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// ImportersOf lists the Go files among files (paths under dir) that import
// pkg, by path: a room's rule ("the live commands do not import the
// linter") checked on the files themselves, test files left out.
func ImportersOf(dir string, files []string, pkg string) ([]string, error) {
	var out []string
	for _, f := range files {
		imports, err := Imports(dir, []string{f})
		if err != nil {
			return nil, err
		}
		if slices.Contains(imports, pkg) {
			out = append(out, f)
		}
	}
	return out, nil
}

// Imports lists the packages the Go files among files (paths under dir)
// import, each once, sorted; test files are left out.
func Imports(dir string, files []string) ([]string, error) {
	var out []string
	fset := token.NewFileSet()
	for _, f := range files {
		if !strings.HasSuffix(f, ".go") || strings.HasSuffix(f, "_test.go") {
			continue
		}
		parsed, err := parser.ParseFile(fset, filepath.Join(dir, f), nil, parser.ImportsOnly)
		if err != nil {
			return nil, err
		}
		for _, s := range parsed.Imports {
			if p, err := strconv.Unquote(s.Path.Value); err == nil && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

// ChainsTo returns, for each of pkgs that depends on target, directly or
// not, one chain of imports that leads there (the package first, target
// last), from the import graph `go list -deps` run in dir finds (test files
// left out). A package that does not depend on target has no entry.
func ChainsTo(ctx context.Context, dir string, pkgs []string, target string) (map[string][]string, error) {
	args := append([]string{"list", "-deps", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}"}, pkgs...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -deps %s: %w", strings.Join(pkgs, " "), err)
	}
	imports := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		if f := strings.Fields(line); len(f) > 0 {
			imports[f[0]] = f[1:]
		}
	}
	chains := map[string][]string{}
	for _, p := range pkgs {
		if chain := chainTo(imports, p, target); chain != nil {
			chains[p] = chain
		}
	}
	return chains, nil
}

// chainTo is a shortest chain of imports from pkg to target, breadth first,
// or nil when pkg does not reach target.
func chainTo(imports map[string][]string, pkg, target string) []string {
	parent := map[string]string{pkg: ""}
	queue := []string{pkg}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if p == target {
			var chain []string
			for ; p != ""; p = parent[p] {
				chain = append([]string{p}, chain...)
			}
			return chain
		}
		for _, next := range imports[p] {
			if _, seen := parent[next]; !seen {
				parent[next] = p
				queue = append(queue, next)
			}
		}
	}
	return nil
}

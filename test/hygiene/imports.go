package hygiene

import (
	"go/ast"
	"go/parser"
	"go/token"
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
	fset := token.NewFileSet()
	for _, f := range files {
		if !strings.HasSuffix(f, ".go") || strings.HasSuffix(f, "_test.go") {
			continue
		}
		parsed, err := parser.ParseFile(fset, filepath.Join(dir, f), nil, parser.ImportsOnly)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(parsed.Imports, func(s *ast.ImportSpec) bool {
			p, _ := strconv.Unquote(s.Path.Value)
			return p == pkg
		}) {
			out = append(out, f)
		}
	}
	return out, nil
}

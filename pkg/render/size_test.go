package render

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// Files and functions too long to review hide where the render's two
// rooms meet; these limits keep both packages readable. A file over
// maxFileLines or a function over maxFuncLines, tests included, fails TestRenderPackagesStaySmall: split it along a seam
// of its own (a step of the build, a table of cases) rather than raise
// the limit.
const (
	maxFileLines = 500
	maxFuncLines = 80
)

// TestRenderPackagesStaySmall reads every Go file of pkg/render and its
// sub-packages (testdata aside) and names each file and function over the
// limits.
func TestRenderPackagesStaySmall(t *testing.T) {
	checked := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		checked++
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		for _, over := range oversized(fset, f) {
			t.Errorf("pkg/render/%s", over)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 40 {
		t.Fatalf("read %d Go files: not pkg/render", checked)
	}
}

// oversized names the file f if it is over maxFileLines, and each of its
// functions (methods included) over maxFuncLines, counted from the func
// keyword to the closing brace.
func oversized(fset *token.FileSet, f *ast.File) []string {
	var out []string
	file := fset.File(f.Pos())
	if n := file.LineCount(); n > maxFileLines {
		out = append(out, fmt.Sprintf("%s: %d lines, over %d", filepath.ToSlash(file.Name()), n, maxFileLines))
	}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		start, end := fset.Position(fn.Pos()), fset.Position(fn.End())
		if n := end.Line - start.Line + 1; n > maxFuncLines {
			out = append(out, fmt.Sprintf("%s:%d: %s: %d lines, over %d", filepath.ToSlash(start.Filename), start.Line, fn.Name.Name, n, maxFuncLines))
		}
	}
	return out
}

func TestOversizedFindsLongFilesAndFunctions(t *testing.T) {
	body := func(lines int) string { return strings.Repeat("\t_ = 0\n", lines) }
	tests := []struct {
		name, src string
		want      []string
	}{
		{"small", "package x\n\nfunc f() {\n" + body(3) + "}\n", nil},
		{"a function of exactly the limit", "package x\n\nfunc f() {\n" + body(maxFuncLines-2) + "}\n", nil},
		{"a function over the limit", "package x\n\nfunc f() {\n" + body(maxFuncLines-1) + "}\n", []string{"x.go:3: f: 81 lines, over 80"}},
		{"a method over the limit", "package x\n\ntype T int\n\nfunc (T) m() {\n" + body(maxFuncLines) + "}\n", []string{"x.go:5: m: 82 lines, over 80"}},
		{"a file over the limit", "package x\n\nvar v = []int{\n" + strings.Repeat("\t0,\n", maxFileLines) + "}\n", []string{"x.go: 504 lines, over 500"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, "x.go", tt.src, 0)
			if err != nil {
				t.Fatal(err)
			}
			got := oversized(fset, f)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("oversized = %q, want %q", got, tt.want)
			}
		})
	}
}

package ciskip

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoBareSkips reads every Go file of the module and refuses a call of
// Skip, Skipf or SkipNow that is not ciskip's own, unless it stands inside an
// if whose condition asks testing.Short() (CI never passes -short) or
// runtime.GOOS (a test for another platform). Every other skip must go
// through Skipf, which fails under CI.
func TestNoBareSkips(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	var checked int
	err := filepath.WalkDir(root, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if base := d.Name(); name != root && (base == "testdata" || strings.HasPrefix(base, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || filepath.Dir(name) == "." {
			return nil
		}
		rel, _ := filepath.Rel(root, name)
		if filepath.ToSlash(filepath.Dir(rel)) == "internal/ciskip" {
			return nil
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			return err
		}
		checked++
		for _, pos := range bareSkips(f) {
			p := fset.Position(pos)
			t.Errorf("%s:%d: a bare skip: call ciskip.Skipf (fails under CI), or guard it with testing.Short() or runtime.GOOS", rel, p.Line)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("read %d Go files: not this module", checked)
	}
}

func TestBareSkipsFindsEachForm(t *testing.T) {
	src := `package x
import ("runtime"; "testing")
func A(t *testing.T) { t.Skip("no") }
func B(b *testing.B) { b.Skipf("no %d", 1) }
func C(tb testing.TB) { tb.SkipNow() }
func D(t *testing.T) { if testing.Short() { t.Skip("short") } }
func E(t *testing.T) { if runtime.GOOS == "windows" { t.Skip("unix only") } }
func F(t *testing.T) { if testing.Short() || x() { return }; t.Skip("after") }
`
	f, err := parser.ParseFile(token.NewFileSet(), "x.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(bareSkips(f)); got != 4 {
		t.Fatalf("found %d bare skips, want 4 (A, B, C, F)", got)
	}
}

// bareSkips returns the positions of the skips TestNoBareSkips refuses.
func bareSkips(f *ast.File) []token.Pos {
	var found []token.Pos
	var visit func(n ast.Node, guarded bool)
	visit = func(n ast.Node, guarded bool) {
		ast.Inspect(n, func(c ast.Node) bool {
			if c == n {
				return true
			}
			switch c := c.(type) {
			case *ast.IfStmt:
				if c.Init != nil {
					visit(c.Init, guarded)
				}
				visit(c.Cond, guarded)
				visit(c.Body, guarded || allowedGuard(c.Cond))
				if c.Else != nil {
					visit(c.Else, guarded)
				}
				return false
			case *ast.CallExpr:
				if sel, ok := c.Fun.(*ast.SelectorExpr); ok && !guarded {
					switch sel.Sel.Name {
					case "Skip", "Skipf", "SkipNow":
						if id, ok := sel.X.(*ast.Ident); !ok || id.Name != "ciskip" {
							found = append(found, c.Pos())
						}
					}
				}
			}
			return true
		})
	}
	visit(f, false)
	return found
}

func allowedGuard(cond ast.Expr) bool {
	allowed := false
	ast.Inspect(cond, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				if (id.Name == "testing" && sel.Sel.Name == "Short") || (id.Name == "runtime" && sel.Sel.Name == "GOOS") {
					allowed = true
				}
			}
		}
		return !allowed
	})
	return allowed
}

// The module root must be where go.mod is, for the walk above.
func TestMain(m *testing.M) {
	if _, err := os.Stat(filepath.Join("..", "..", "go.mod")); err != nil {
		panic("ciskip tests run from internal/ciskip: " + err.Error())
	}
	os.Exit(m.Run())
}

package doctor

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"testing"
)

// conformedKnobs are the knobs whose rule cases live beside the knob, in
// its conformance test: a suite.Files or suite.Registry literal of
// internal/knob's tests
// that names the knob and is not marked More. The suite fails there
// unless its cases reach every rule of the knob, so doctor needs no case
// of its own for them.
func conformedKnobs(t *testing.T) map[string]bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "knob", "*_test.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("the knob tests: %v %q", err, files)
	}
	out := map[string]bool{}
	fset := token.NewFileSet()
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			if sel, ok := lit.Type.(*ast.SelectorExpr); !ok || (sel.Sel.Name != "Files" && sel.Sel.Name != "Registry") || !isIdent(sel.X, "suite") {
				return true
			}
			name, more := "", false
			for _, e := range lit.Elts {
				kv, ok := e.(*ast.KeyValueExpr)
				if !ok {
					continue
				}
				switch {
				case isIdent(kv.Key, "Knob"):
					if b, ok := kv.Value.(*ast.BasicLit); ok {
						name, _ = strconv.Unquote(b.Value)
					}
				case isIdent(kv.Key, "More"):
					more = !isIdent(kv.Value, "false")
				}
			}
			if name != "" && !more {
				out[name] = true
			}
			return true
		})
	}
	return out
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

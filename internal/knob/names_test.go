package knob

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A knob is one file: its name is written once, in the file that declares
// it, and everything else (the check-up, try, the exporter) asks the
// catalogue. A second file that spells a knob's name keeps a table of its
// own, which this test finds by reading every non-test Go file of the
// module.
func TestKnobNameInOneFile(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found: %v", err)
	}
	names := map[string]bool{}
	for _, k := range All() {
		names[k.Name()] = true
	}
	files := map[string][]string{} // knob name -> files that spell it
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution|parser.ParseComments)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			return nil // made from the catalogue (scripts/knobdoc), not by hand
		}
		seen := map[string]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err == nil && names[s] && !seen[s] {
				seen[s] = true
				rel, _ := filepath.Rel(root, p)
				files[s] = append(files[s], filepath.ToSlash(rel))
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for n := range names {
		if len(files[n]) != 1 {
			t.Errorf("knob %s is spelt in %d non-test files, want 1 (its own): %v", n, len(files[n]), files[n])
		}
	}
}

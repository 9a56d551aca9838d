package all_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/engine"
	_ "github.com/rumbench/rumbench/internal/engine/all"
)

// TestNoEngineNames: workloads read what an engine is from its capabilities (table.Info's
// Dialect, TableEngine, BinaryText; engine.Spec's PerUnitBytes), never from its name: no string
// literal in a workload's code names a registered engine (or InnoDB), so a new engine is one
// package and no workload's edit.
func TestNoEngineNames(t *testing.T) {
	names := map[string]bool{"innodb": true}
	for _, n := range engine.Names() {
		names[n] = n != "null" // the null engine's name is SQL's and pgbench's word too
	}
	fset := token.NewFileSet()
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "worktest" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if v, err := strconv.Unquote(lit.Value); err == nil && names[strings.ToLower(v)] {
					t.Errorf("%s: the engine name %s: read a capability instead", fset.Position(lit.Pos()), lit.Value)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

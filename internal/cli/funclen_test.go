package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines bounds a function of the command line's code: the CLI parses and presents, in
// functions that fit on a screen.
const maxFuncLines = 100

// TestFunctionsAreShort: no function (or function literal) of the package's own code is longer
// than maxFuncLines lines.
func TestFunctionsAreShort(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			name := "a function literal"
			switch x := n.(type) {
			case *ast.FuncDecl:
				name = x.Name.Name
			case *ast.FuncLit:
			default:
				return true
			}
			if lines := fset.Position(n.End()).Line - fset.Position(n.Pos()).Line + 1; lines > maxFuncLines {
				t.Errorf("%s: %s has %d lines (at most %d)", fset.Position(n.Pos()), name, lines, maxFuncLines)
			}
			return true
		})
	}
}

package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// maxFuncLines is the most lines a function of internal/ or cmd/ may take, from its func
// keyword to its closing brace (its doc comment not counted), test files left out.
const maxFuncLines = 100

// longTables are the functions over maxFuncLines that are declarative tables, which read best
// whole: a key ("path/to/file.go Func", "path/to/file.go (*Recv).Method") and why.
var longTables = map[string]string{
	"internal/metric/catalog.go init": "the metric catalog: one declaration per figure",
}

// beingSplit are functions over maxFuncLines whose packages are being split: none now.
var beingSplit = map[string]string{}

// TestFunctionLength fails for every function of internal/ and cmd/ (test files left out) over
// maxFuncLines lines that is not listed in longTables or beingSplit, and for every listed
// function that is no longer over the limit (or no longer exists): its entry must go.
func TestFunctionLength(t *testing.T) {
	root := moduleRoot(t)
	lengths := map[string]int{}  // key → lines, of the functions over the limit
	where := map[string]string{} // key → "file:line name", for the messages
	fset := token.NewFileSet()
	for _, dir := range []string{"internal", "cmd"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if name := d.Name(); name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			for _, decl := range f.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if !ok || fn.Body == nil {
					continue
				}
				begin, end := fset.Position(fn.Pos()), fset.Position(fn.End())
				if n := end.Line - begin.Line + 1; n > maxFuncLines {
					key := filepath.ToSlash(rel) + " " + funcName(fn)
					lengths[key] = n
					where[key] = fmt.Sprintf("%s:%d: %s", filepath.ToSlash(rel), begin.Line, funcName(fn))
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var problems []string
	for key, n := range lengths {
		if longTables[key] == "" && beingSplit[key] == "" {
			problems = append(problems, fmt.Sprintf("%s is %d lines, over %d: split it into functions that each do one thing (a declarative table goes in longTables as %q, with its reason)",
				where[key], n, maxFuncLines, key))
		}
	}
	for _, list := range []struct {
		name    string
		entries map[string]string
	}{{"longTables", longTables}, {"beingSplit", beingSplit}} {
		for key := range list.entries {
			if _, ok := lengths[key]; !ok {
				problems = append(problems, fmt.Sprintf("%s lists %s, which is not over %d lines (or not there): remove the entry", list.name, key, maxFuncLines))
			}
		}
	}
	sort.Strings(problems)
	for _, p := range problems {
		t.Error(p)
	}
}

// funcName names a function declaration as the lists do: "Func", "(*Recv).Method" or
// "Recv.Method", type parameters left out.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	typ := fn.Recv.List[0].Type
	star := ""
	if s, ok := typ.(*ast.StarExpr); ok {
		star, typ = "*", s.X
	}
	switch x := typ.(type) {
	case *ast.IndexExpr:
		typ = x.X
	case *ast.IndexListExpr:
		typ = x.X
	}
	recv := fmt.Sprint(typ)
	if id, ok := typ.(*ast.Ident); ok {
		recv = id.Name
	}
	if star != "" {
		return "(" + star + recv + ")." + fn.Name.Name
	}
	return recv + "." + fn.Name.Name
}

// moduleRoot is the module's directory: the nearest one above the test's with a go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

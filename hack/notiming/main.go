// Command notiming fails when a test compares a measured duration.
//
//	go run ./hack/notiming [dir ...]
//
// It parses every _test.go file under the directories (default: the
// current one), and the other files of test-only packages (those whose
// name ends in "test", such as policytest), and names, as file:line, each
// ordered comparison (<, >, <=, >=) outside a benchmark that involves a
// duration measured from the clock: time.Since, time.Until, the Sub of a
// time.Now reading, a variable assigned from one of those (transitively),
// or the result of a function of the package that returns one. A
// benchmark is a function named Benchmark* or one that takes a
// *testing.B. Speed claims belong in benchmarks; a timeout is tested by
// the error it returns, parallelism with barriers.
//
// The check is syntactic (go/ast, no type checking), so it names only what
// it can see: a measured duration passed through a struct field or another
// package escapes it.
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	roots := os.Args[1:]
	if len(roots) == 0 {
		roots = []string{"."}
	}
	findings, err := run(roots)
	if err != nil {
		fmt.Fprintln(os.Stderr, "notiming:", err)
		os.Exit(2)
	}
	for _, f := range findings {
		fmt.Println(f)
	}
	if len(findings) > 0 {
		fmt.Fprintf(os.Stderr, "notiming: %d comparisons of measured durations in tests\n", len(findings))
		os.Exit(1)
	}
}

// run checks the Go packages under roots.
func run(roots []string) ([]finding, error) {
	dirs := map[string][]string{}
	for _, root := range roots {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := d.Name()
			if d.IsDir() {
				if path != root && (name == "vendor" || name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
					return filepath.SkipDir
				}
				return nil
			}
			if strings.HasSuffix(name, ".go") {
				dirs[filepath.Dir(path)] = append(dirs[filepath.Dir(path)], path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	var out []finding
	for _, paths := range dirs {
		fset := token.NewFileSet()
		var files []*ast.File
		for _, path := range paths {
			if !strings.HasSuffix(path, "_test.go") {
				// Only the files of test-only packages are checked.
				f, err := parser.ParseFile(fset, path, nil, parser.PackageClauseOnly)
				if err != nil {
					return nil, err
				}
				if !strings.HasSuffix(f.Name.Name, "test") {
					continue
				}
			}
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return nil, err
			}
			files = append(files, f)
		}
		out = append(out, check(fset, files)...)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].pos, out[j].pos
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		return a.Line < b.Line
	})
	return out, nil
}

func exprString(e ast.Expr) string { return types.ExprString(e) }

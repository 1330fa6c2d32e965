package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// findings returns "function:line" for each finding in src, a file of
// package p.
func findings(t *testing.T, src string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x_test.go", "package p\n"+src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, fd := range check(fset, []*ast.File{f}) {
		out = append(out, fd.fn+":"+strconv.Itoa(fd.pos.Line-1))
	}
	return out
}

// TestCheck runs the check on each testdata/cases/*.src (a file of package
// p without its package clause; line 1 is its first line) and compares the
// findings with the .want beside it, one "function:line" a line. The cases
// live in files so that this test holds no duration comparison of its own.
func TestCheck(t *testing.T) {
	srcs, err := filepath.Glob(filepath.Join("testdata", "cases", "*.src"))
	if err != nil || len(srcs) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, path := range srcs {
		name := strings.TrimSuffix(filepath.Base(path), ".src")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			wantData, err := os.ReadFile(strings.TrimSuffix(path, ".src") + ".want")
			if err != nil {
				t.Fatal(err)
			}
			want := strings.Fields(string(wantData))
			if diff := cmp.Diff(want, findings(t, string(src)), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRun checks that run reads _test.go files and test-only packages,
// and no other files.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	bad, err := os.ReadFile(filepath.Join("testdata", "cases", "01-time-since-compared.src"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(path, pkg string) {
		t.Helper()
		path = filepath.Join(dir, path)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("package "+pkg+"\n"+string(bad)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a/a.go", "a")
	write("a/a_test.go", "a")
	write("b/btest/b.go", "btest")
	write("a/testdata/c_test.go", "c")
	got, err := run([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range got {
		names = append(names, strings.TrimPrefix(filepath.ToSlash(f.pos.Filename), filepath.ToSlash(dir)+"/"))
	}
	if diff := cmp.Diff([]string{"a/a_test.go", "b/btest/b.go"}, names); diff != "" {
		t.Errorf("files with findings (-want +got):\n%s", diff)
	}
}

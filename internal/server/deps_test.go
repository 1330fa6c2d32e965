package server

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/portcullis/portcullis/"

// imports maps every package under internal/ to the internal packages its
// non-test files import.
func imports(t *testing.T) map[string][]string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(filepath.Dir(root), filepath.Dir(path))
		pkg := filepath.ToSlash(rel)
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(p, module+"internal/") {
				out[pkg] = append(out[pkg], strings.TrimPrefix(p, module))
			}
		}
		if _, ok := out[pkg]; !ok {
			out[pkg] = nil
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestOneWayWiring keeps the dependency graph of DESIGN.md: the object
// layer first, the chain over it, the REST handlers over the chain, the
// server over everything. Go forbids import cycles; this forbids the
// loops that would otherwise come back as late-bound pointers.
func TestOneWayWiring(t *testing.T) {
	deps := imports(t)
	if len(deps) < 20 {
		t.Fatalf("found only %d packages under internal/", len(deps))
	}
	under := func(pkg string, prefixes ...string) bool {
		for _, p := range prefixes {
			if pkg == p || strings.HasPrefix(pkg, p+"/") {
				return true
			}
		}
		return false
	}
	for pkg, imps := range deps {
		for _, imp := range imps {
			switch {
			case under(imp, "internal/server") && !under(pkg, "internal/offline"):
				// internal/offline drives the server in process, as
				// cmd/portcullis starts it: it sits above the server.
				t.Errorf("%s imports %s: nothing but the offline runner may depend on the server", pkg, imp)
			case under(imp, "internal/rest") && !under(pkg, "internal/server", "internal/controllers/controllertest"):
				t.Errorf("%s imports %s: only the server wires the REST handlers; define the interface you need", pkg, imp)
			case under(imp, "internal/controllers") && !under(pkg, "internal/server", "internal/controllers"):
				t.Errorf("%s imports %s: controllers are wired by the server alone", pkg, imp)
			case pkg == "internal/objects" && !under(imp, "internal/registry", "internal/storage", "internal/defaults"):
				// defaults: kube-apiserver's storage codec defaults every object it reads.
				t.Errorf("%s imports %s: the object layer is built from the registry, the store and the defaults alone", pkg, imp)
			}
		}
	}
}

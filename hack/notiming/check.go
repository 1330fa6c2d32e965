package main

import (
	"fmt"
	"go/ast"
	"go/token"
	"strconv"
	"strings"
)

// A finding is one comparison of a measured duration.
type finding struct {
	pos  token.Position
	fn   string
	expr string
}

func (f finding) String() string {
	return fmt.Sprintf("%s: %s compares a measured duration: %s", f.pos, f.fn, f.expr)
}

// pkgChecker checks the files of one package: it knows which of the
// package's functions return a measured duration.
type pkgChecker struct {
	fset     *token.FileSet
	files    []*ast.File
	durFuncs map[string]bool
}

// check returns the findings in files, which are one package.
func check(fset *token.FileSet, files []*ast.File) []finding {
	c := &pkgChecker{fset: fset, files: files, durFuncs: map[string]bool{}}
	// Functions that return a measured duration make their callers'
	// results measured too: iterate until no new one is found.
	for changed := true; changed; {
		changed = false
		for _, f := range files {
			tp := timeName(f)
			if tp == "" {
				continue
			}
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Body == nil || fd.Recv != nil || c.durFuncs[fd.Name.Name] {
					continue
				}
				s := c.scopeOf(tp, fd.Body)
				if s.returnsMeasure(fd.Body) {
					c.durFuncs[fd.Name.Name] = true
					changed = true
				}
			}
		}
	}
	var out []finding
	for _, f := range files {
		tp := timeName(f)
		if tp == "" {
			continue
		}
		for _, d := range f.Decls {
			var name string
			var body ast.Node
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Body == nil || isBenchmark(d.Name.Name, d.Type) {
					continue
				}
				name, body = d.Name.Name, d.Body
				if d.Recv != nil && len(d.Recv.List) == 1 {
					name = exprString(d.Recv.List[0].Type) + "." + name
				}
			case *ast.GenDecl:
				name, body = "package-level declaration", d
			}
			out = append(out, c.scopeOf(tp, body).comparisons(name)...)
		}
	}
	return out
}

// timeName is the name under which f imports package time, "" if it does
// not.
func timeName(f *ast.File) string {
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == "time" {
			if imp.Name != nil {
				if imp.Name.Name == "_" || imp.Name.Name == "." {
					return ""
				}
				return imp.Name.Name
			}
			return "time"
		}
	}
	return ""
}

// isBenchmark reports whether a function is a benchmark or a benchmark's
// helper: named Benchmark*, or taking a *testing.B.
func isBenchmark(name string, ft *ast.FuncType) bool {
	if strings.HasPrefix(name, "Benchmark") {
		return true
	}
	for _, p := range ft.Params.List {
		if star, ok := p.Type.(*ast.StarExpr); ok && exprString(star.X) == "testing.B" {
			return true
		}
	}
	return false
}

// A scope is the taint of one function body: the variables holding a
// time.Time read from the clock, those holding a duration measured from
// it, and those holding a function that returns such a duration.
type scope struct {
	c        *pkgChecker
	timePkg  string
	body     ast.Node
	timeVals map[any]bool
	durVals  map[any]bool
	durFuncs map[any]bool
}

// key identifies a variable: by its declaration where the parser resolved
// it, else by name.
func key(id *ast.Ident) any {
	if id.Obj != nil {
		return id.Obj
	}
	return id.Name
}

func (c *pkgChecker) scopeOf(timePkg string, body ast.Node) *scope {
	s := &scope{c: c, timePkg: timePkg, body: body, timeVals: map[any]bool{}, durVals: map[any]bool{}, durFuncs: map[any]bool{}}
	for changed := true; changed; {
		changed = false
		mark := func(id *ast.Ident, rhs ast.Expr) {
			if id == nil || id.Name == "_" || rhs == nil {
				return
			}
			k := key(id)
			if !s.timeVals[k] && s.isTimeVal(rhs) {
				s.timeVals[k], changed = true, true
			}
			if !s.durVals[k] && s.measures(rhs) {
				s.durVals[k], changed = true, true
			}
			if lit, ok := rhs.(*ast.FuncLit); ok && !s.durFuncs[k] && s.returnsMeasure(lit.Body) {
				s.durFuncs[k], changed = true, true
			}
		}
		ast.Inspect(body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				for i, l := range n.Lhs {
					id := rootIdent(l)
					if len(n.Rhs) == len(n.Lhs) {
						mark(id, n.Rhs[i])
					} else if len(n.Rhs) == 1 {
						mark(id, n.Rhs[0])
					}
				}
			case *ast.ValueSpec:
				for i, id := range n.Names {
					if len(n.Values) == len(n.Names) {
						mark(id, n.Values[i])
					} else if len(n.Values) == 1 {
						mark(id, n.Values[0])
					}
				}
			case *ast.RangeStmt:
				if v, ok := n.Value.(*ast.Ident); ok && s.measures(n.X) {
					mark(v, n.X)
				}
			}
			return true
		})
	}
	return s
}

// rootIdent is the variable an assignment to l writes: x for x, x[i] and
// x.f; nil for anything else.
func rootIdent(l ast.Expr) *ast.Ident {
	for {
		switch e := l.(type) {
		case *ast.Ident:
			return e
		case *ast.IndexExpr:
			l = e.X
		case *ast.SelectorExpr:
			l = e.X
		case *ast.ParenExpr:
			l = e.X
		case *ast.StarExpr:
			l = e.X
		default:
			return nil
		}
	}
}

// isPkgCall reports whether e is a call of pkg.fn.
func isPkgCall(e ast.Expr, pkg string, fns ...string) bool {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	if x, ok := sel.X.(*ast.Ident); !ok || x.Name != pkg || x.Obj != nil {
		return false
	}
	for _, fn := range fns {
		if sel.Sel.Name == fn {
			return true
		}
	}
	return false
}

// isTimeVal reports whether e is a time.Time read from the clock: a call
// of time.Now, a variable holding one, or one moved by Add, Round,
// Truncate, UTC or Local.
func (s *scope) isTimeVal(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.ParenExpr:
		return s.isTimeVal(e.X)
	case *ast.Ident:
		return s.timeVals[key(e)]
	case *ast.CallExpr:
		if isPkgCall(e, s.timePkg, "Now") {
			return true
		}
		if sel, ok := e.Fun.(*ast.SelectorExpr); ok {
			switch sel.Sel.Name {
			case "Add", "Round", "Truncate", "UTC", "Local":
				return s.isTimeVal(sel.X)
			}
		}
	}
	return false
}

// measures reports whether e involves a measured duration: time.Since,
// time.Until, the Sub of a clock reading, a variable holding one, or the
// call of a function that returns one. Function literals in e are not
// looked into: they are not evaluated by e.
func (s *scope) measures(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.Ident:
			if s.durVals[key(n)] {
				found = true
			}
		case *ast.CallExpr:
			if isPkgCall(n, s.timePkg, "Since", "Until") {
				found = true
				return false
			}
			switch fun := n.Fun.(type) {
			case *ast.SelectorExpr:
				if fun.Sel.Name == "Sub" && len(n.Args) == 1 && (s.isTimeVal(fun.X) || s.isTimeVal(n.Args[0])) {
					found = true
				}
			case *ast.Ident:
				if s.durFuncs[key(fun)] || ((fun.Obj == nil || fun.Obj.Kind == ast.Fun) && s.c.durFuncs[fun.Name]) {
					found = true
				}
			}
		}
		return true
	})
	return found
}

// returnsMeasure reports whether a return statement of body (not of a
// function literal inside it) returns a measured duration.
func (s *scope) returnsMeasure(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			for _, r := range n.Results {
				if s.measures(r) {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// comparisons returns the ordered comparisons (<, >, <=, >=) of the body
// that involve a measured duration, skipping function literals that are
// benchmarks.
func (s *scope) comparisons(fn string) []finding {
	var out []finding
	ast.Inspect(s.body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return !isBenchmark("", n.Type)
		case *ast.BinaryExpr:
			switch n.Op {
			case token.LSS, token.GTR, token.LEQ, token.GEQ:
				if s.measures(n.X) || s.measures(n.Y) {
					out = append(out, finding{pos: s.c.fset.Position(n.OpPos), fn: fn, expr: exprString(n)})
				}
			}
		}
		return true
	})
	return out
}

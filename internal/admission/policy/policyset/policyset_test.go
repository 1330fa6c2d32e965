package policyset

import (
	"context"
	"strings"
	"testing"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/policy/matching"
)

// all matches every request.
var all = matching.CompileBinding(nil)

type pol struct{ Policy }

func (p *pol) Common() *Policy { return &p.Policy }

func newPol(name string, dropped bool) *pol {
	return &pol{Policy{Name: name, Match: all, Dropped: dropped}}
}

type bind struct{ Binding }

func (b *bind) Common() *Binding { return &b.Binding }

func newBind(name, policy string) *bind {
	return &bind{Binding{Name: name, PolicyName: policy, Match: all}}
}

func entries(s *Set[*pol, *bind]) string {
	req := matching.NewRequest(context.Background(), &admission.Attributes{Operation: admission.Create}, nil)
	var out []string
	for _, e := range s.Current().Index.Lookup(nil, req) {
		var bs []string
		for _, b := range e.Bindings.Lookup(nil, req) {
			bs = append(bs, b.Name)
		}
		out = append(out, e.Policy.Name+"["+strings.Join(bs, ",")+"]")
	}
	return strings.Join(out, " ")
}

func TestSet(t *testing.T) {
	s := New[*pol, *bind]()
	put := func(name string, dropped bool) {
		s.PutPolicy(name, dropped, func() *pol { return newPol(name, dropped) })
	}
	steps := []struct {
		name string
		do   func()
		want string
	}{
		{"empty", func() {}, ""},
		{"a policy without bindings is left out", func() { put("b", false) }, ""},
		{"bindings in name order", func() { s.PutBinding(newBind("z", "b")); s.PutBinding(newBind("y", "b")) }, "b[y,z]"},
		{"policies in name order", func() { put("a", false); s.PutBinding(newBind("x", "a")) }, "a[x] b[y,z]"},
		{"a binding to a missing policy is left out", func() { s.PutBinding(newBind("w", "nope")) }, "a[x] b[y,z]"},
		{"dropped policies are left out", func() { put("a", true) }, "b[y,z]"},
		{"deletes", func() { s.DeleteBinding("y"); s.DeletePolicy("a") }, "b[z]"},
	}
	for _, st := range steps {
		st.do()
		if got := entries(s); got != st.want {
			t.Errorf("%s: got %q, want %q", st.name, got, st.want)
		}
	}
	before, _ := s.Policy("b")
	s.PutPolicy("b", false, func() *pol { t.Error("an unchanged spec was compiled again"); return nil })
	if after, _ := s.Policy("b"); after != before {
		t.Error("an unchanged spec replaced the compiled policy")
	}
	s.PutPolicy("b", true, func() *pol { return newPol("b", true) })
	if got := entries(s); got != "" {
		t.Errorf("a changed spec was not compiled: %q", got)
	}
}

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

type pol struct {
	name    string
	dropped bool
}

func (p *pol) Criteria() *matching.Criteria { return all }
func (p *pol) Dropped() bool                { return p.dropped }

type bind struct{ name, policy string }

func (b *bind) BindingName() string          { return b.name }
func (b *bind) PolicyName() string           { return b.policy }
func (b *bind) Criteria() *matching.Criteria { return all }

func entries(s *Set[*pol, *bind]) string {
	req := matching.NewRequest(context.Background(), &admission.Attributes{Operation: admission.Create}, nil)
	var out []string
	for _, e := range s.Current().Index.Lookup(nil, req) {
		var bs []string
		for _, b := range e.Bindings.Lookup(nil, req) {
			bs = append(bs, b.name)
		}
		out = append(out, e.Policy.name+"["+strings.Join(bs, ",")+"]")
	}
	return strings.Join(out, " ")
}

func TestSet(t *testing.T) {
	s := New[*pol, *bind]()
	put := func(name string, dropped bool) {
		s.PutPolicy(name, func(*pol, bool) *pol { return &pol{name: name, dropped: dropped} })
	}
	steps := []struct {
		name string
		do   func()
		want string
	}{
		{"empty", func() {}, ""},
		{"a policy without bindings is left out", func() { put("b", false) }, ""},
		{"bindings in name order", func() { s.PutBinding(&bind{"z", "b"}); s.PutBinding(&bind{"y", "b"}) }, "b[y,z]"},
		{"policies in name order", func() { put("a", false); s.PutBinding(&bind{"x", "a"}) }, "a[x] b[y,z]"},
		{"a binding to a missing policy is left out", func() { s.PutBinding(&bind{"w", "nope"}) }, "a[x] b[y,z]"},
		{"dropped policies are left out", func() { put("a", true) }, "b[y,z]"},
		{"deletes", func() { s.DeleteBinding("y"); s.DeletePolicy("a") }, "b[z]"},
	}
	for _, st := range steps {
		st.do()
		if got := entries(s); got != st.want {
			t.Errorf("%s: got %q, want %q", st.name, got, st.want)
		}
	}
	var sawOld bool
	s.PutPolicy("b", func(old *pol, ok bool) *pol { sawOld = ok && old.name == "b"; return old })
	if !sawOld {
		t.Error("PutPolicy did not pass the stored policy")
	}
}

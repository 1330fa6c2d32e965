package policyset

import (
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/portcullis/portcullis/internal/admission/policy/matching"
)

// Object is a policy or binding object as informers hand them over.
type Object interface {
	runtime.Object
	GetName() string
}

// Handler is a plugin's informer.Handler: it compiles the policy objects
// (PO) and binding objects (BO) it is given into Set, and ignores other
// objects.
type Handler[PO, BO Object, P CompiledPolicy, B CompiledBinding] struct {
	Set *Set[P, B]
	// CompilePolicy compiles a policy.
	CompilePolicy func(PO) P
	// Spec returns what of a policy is compiled: a change to anything
	// else (status, metadata) keeps the compiled policy.
	Spec func(PO) any
	// CompileBinding compiles a binding.
	CompileBinding func(BO) B
}

// NewHandler returns a handler feeding a new, empty set.
func NewHandler[PO, BO Object, P CompiledPolicy, B CompiledBinding](compilePolicy func(PO) P, spec func(PO) any, compileBinding func(BO) B) *Handler[PO, BO, P, B] {
	return &Handler[PO, BO, P, B]{Set: New[P, B](), CompilePolicy: compilePolicy, Spec: spec, CompileBinding: compileBinding}
}

// Upsert loads or replaces a policy or binding, compiling it now.
func (h *Handler[PO, BO, P, B]) Upsert(obj runtime.Object) {
	if matching.IsNil(obj) {
		return
	}
	switch o := any(obj).(type) {
	case PO:
		h.Set.PutPolicy(o.GetName(), h.Spec(o), func() P { return h.CompilePolicy(o) })
	case BO:
		h.Set.PutBinding(h.CompileBinding(o))
	}
}

// Delete unloads a policy or binding by name.
func (h *Handler[PO, BO, P, B]) Delete(obj runtime.Object) {
	if matching.IsNil(obj) {
		return
	}
	switch o := any(obj).(type) {
	case PO:
		h.Set.DeletePolicy(o.GetName())
	case BO:
		h.Set.DeleteBinding(o.GetName())
	}
}

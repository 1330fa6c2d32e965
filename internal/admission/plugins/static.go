package plugins

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/manifest"
	"github.com/portcullis/portcullis/internal/defaults"
	"github.com/portcullis/portcullis/internal/request"
	"github.com/portcullis/portcullis/internal/validation"
)

// ValidateManifest applies the defaulting and validation of API-created
// objects to a static manifest, and the compilation of a policy's CEL
// expressions.
func ValidateManifest(obj runtime.Object) field.ErrorList {
	defaults.Apply(obj)
	return validation.Create(obj)
}

// engine is a policy or webhook plugin fed with objects.
type engine interface {
	Upsert(obj runtime.Object)
}

// static holds the engine of one plugin's static manifests. Each reload
// builds a new engine from the whole new set and swaps it in at once.
type static[E engine] struct {
	cur atomic.Pointer[E]
	w   *manifest.Watcher
}

// watchStatic loads dir into an engine made by newEngine and keeps it
// current: the set's Run follows the directory. An error loading or
// building the first engine stops start-up.
func watchStatic[E engine](set *Set, dir string, kind manifest.Kind, newEngine func() (E, error), d Deps) (*static[E], error) {
	s := &static[E]{}
	w, err := manifest.NewWatcher(dir, kind, ValidateManifest, func(_, next *manifest.Set) error {
		e, err := newEngine()
		if err != nil {
			return fmt.Errorf("building the %s plugin: %w", kind, err)
		}
		for _, obj := range next.Objects {
			e.Upsert(obj)
		}
		s.cur.Store(&e)
		return nil
	}, d.Metrics, d.Log, manifest.WithServerID(d.ServerID))
	if err != nil {
		return nil, fmt.Errorf("%s staticManifestsDir: %w", kind, err)
	}
	s.w = w
	if set != nil {
		set.runs = append(set.runs, w.Run)
	}
	return s, nil
}

// get returns the engine in force; the watcher put one in before
// watchStatic returned.
func (s *static[E]) get() E { return *s.cur.Load() }

// reservedMessage is kube-apiserver's word on the .static.k8s.io suffix.
var reservedMessage = fmt.Sprintf("names ending with %q are reserved for static manifest-based configurations and cannot be managed via the API", manifest.Suffix)

// reservedName is the error of an admission configuration created through
// the API with a name only static manifests may have.
func reservedName(obj runtime.Object) field.ErrorList {
	m, err := meta.Accessor(obj)
	if err != nil || !isAdmissionConfiguration(obj) || !strings.HasSuffix(m.GetName(), manifest.Suffix) {
		return nil
	}
	return field.ErrorList{field.Invalid(field.NewPath("metadata", "name"), m.GetName(), reservedMessage)}
}

func isAdmissionConfiguration(obj runtime.Object) bool {
	switch obj.(type) {
	case *admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyBinding,
		*admissionregistrationv1.MutatingAdmissionPolicy, *admissionregistrationv1.MutatingAdmissionPolicyBinding,
		*admissionregistrationv1.ValidatingWebhookConfiguration, *admissionregistrationv1.MutatingWebhookConfiguration:
		return true
	}
	return false
}

// staticSuffixCheck warns, with the gate off, about API-created admission
// configurations named like static manifests (with it on, validation
// refuses them: reservedName).
func staticSuffixCheck(gate bool) admission.Validator {
	return admission.ValidatorFunc(func(ctx context.Context, a *admission.Attributes) error {
		if gate || a.Operation != admission.Create || a.Kind.Group != admissionregistrationv1.GroupName || !strings.HasSuffix(a.Name, manifest.Suffix) {
			return nil
		}
		if st := request.StateFrom(ctx); st != nil {
			st.AddWarning(fmt.Sprintf("metadata.name: %s; this object would be refused with the %s feature gate enabled", reservedMessage, GateManifests))
		}
		return nil
	})
}

// ValidateWithExpressions is object validation (which compiles admission
// policies' CEL expressions, as kube-apiserver rejects a policy whose
// expressions do not compile) that, with reserveStatic (the
// ManifestBasedAdmissionControlConfig gate), also refuses to create
// admission configurations named like static manifests, after every other
// error, as kube-apiserver's strategies do.
func ValidateWithExpressions(create func(runtime.Object) field.ErrorList, update func(obj, old runtime.Object) field.ErrorList, reserveStatic bool) (func(runtime.Object) field.ErrorList, func(obj, old runtime.Object) field.ErrorList) {
	return func(obj runtime.Object) field.ErrorList {
		errs := create(obj)
		if reserveStatic {
			errs = append(errs, reservedName(obj)...)
		}
		return errs
	}, update
}

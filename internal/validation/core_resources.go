package validation

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func validateAnnotations(a map[string]string, p *field.Path) field.ErrorList {
	return genericvalidation.ValidateAnnotations(a, p)
}

// setVolumeSources lists the JSON names of the sources a volume sets.
func setVolumeSources(src *corev1.VolumeSource) []string {
	return setPointerFields(reflect.ValueOf(src).Elem())
}

// overcommitAllowed reports whether a resource's request may be below its
// limit: true for native resources (no domain, or a kubernetes.io one)
// except huge pages; extended resources must request exactly their limit.
func overcommitAllowed(name corev1.ResourceName) bool {
	s := string(name)
	native := !strings.Contains(s, "/") || strings.Contains(s, "kubernetes.io/")
	return native && !strings.HasPrefix(s, corev1.ResourceHugePagesPrefix)
}

func validateResourceRequirements(r *corev1.ResourceRequirements, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	limPath, reqPath := p.Child("limits"), p.Child("requests")
	for _, name := range sortedResourceNames(r.Limits) {
		q := r.Limits[name]
		if q.Sign() < 0 {
			errs = append(errs, field.Invalid(limPath.Key(string(name)), q.String(), genericvalidation.IsNegativeErrorMsg))
		}
	}
	for _, name := range sortedResourceNames(r.Requests) {
		q := r.Requests[name]
		if q.Sign() < 0 {
			errs = append(errs, field.Invalid(reqPath.Key(string(name)), q.String(), genericvalidation.IsNegativeErrorMsg))
		}
		limit, ok := r.Limits[name]
		switch {
		case ok && q.Cmp(limit) != 0 && !overcommitAllowed(name):
			errs = append(errs, field.Invalid(reqPath, q.String(), fmt.Sprintf("must be equal to %s limit of %s", name, limit.String())))
		case ok && q.Cmp(limit) > 0:
			errs = append(errs, field.Invalid(reqPath, q.String(), fmt.Sprintf("must be less than or equal to %s limit of %s", name, limit.String())))
		case !ok && !overcommitAllowed(name):
			errs = append(errs, field.Required(limPath, "Limit must be set for non overcommitable resources"))
		}
	}
	return errs
}

// sortedResourceNames gives a stable order to what would otherwise be map
// order, so repeated requests report errors identically.
func sortedResourceNames(l corev1.ResourceList) []corev1.ResourceName {
	names := make([]corev1.ResourceName, 0, len(l))
	for n := range l {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

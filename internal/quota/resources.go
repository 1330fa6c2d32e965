package quota

import (
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Equals says whether a and b hold the same names with equal amounts.
func Equals(a, b corev1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for n, q := range a {
		o, ok := b[n]
		if !ok || q.Cmp(o) != 0 {
			return false
		}
	}
	return true
}

// LessThanOrEqual compares the names a and b share, and returns those
// where a is larger.
func LessThanOrEqual(a, b corev1.ResourceList) (bool, []corev1.ResourceName) {
	var over []corev1.ResourceName
	for n, limit := range b {
		if q, ok := a[n]; ok && q.Cmp(limit) > 0 {
			over = append(over, n)
		}
	}
	return len(over) == 0, over
}

// Add is a+b, name by name.
func Add(a, b corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{}
	for n, q := range a {
		sum := q.DeepCopy()
		if o, ok := b[n]; ok {
			sum.Add(o)
		}
		out[n] = sum
	}
	for n, q := range b {
		if _, ok := out[n]; !ok {
			out[n] = q.DeepCopy()
		}
	}
	return out
}

// SubtractWithNonNegativeResult is a-b, name by name, with what would be
// negative as zero: an update that shrinks an object releases nothing at
// admission (the quota controller recalculates).
func SubtractWithNonNegativeResult(a, b corev1.ResourceList) corev1.ResourceList {
	zero := resource.MustParse("0")
	out := corev1.ResourceList{}
	for n, q := range a {
		d := q.DeepCopy()
		if o, ok := b[n]; ok {
			d.Sub(o)
		}
		if d.Cmp(zero) > 0 {
			out[n] = d
		} else {
			out[n] = zero
		}
	}
	for n := range b {
		if _, ok := out[n]; !ok {
			out[n] = zero
		}
	}
	return out
}

// Mask keeps the names of l that are in names.
func Mask(l corev1.ResourceList, names []corev1.ResourceName) corev1.ResourceList {
	out := corev1.ResourceList{}
	for n, q := range l {
		if slices.Contains(names, n) {
			out[n] = q.DeepCopy()
		}
	}
	return out
}

// ResourceNames are the names of l, sorted.
func ResourceNames(l corev1.ResourceList) []corev1.ResourceName {
	names := make([]corev1.ResourceName, 0, len(l))
	for n := range l {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Intersection is the sorted, duplicate-free names of a also in b.
func Intersection(a, b []corev1.ResourceName) []corev1.ResourceName {
	out := make([]corev1.ResourceName, 0, len(a))
	for _, n := range a {
		if slices.Contains(b, n) && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// Difference is the sorted, duplicate-free names of a not in b.
func Difference(a, b []corev1.ResourceName) []corev1.ResourceName {
	out := make([]corev1.ResourceName, 0, len(a))
	for _, n := range a {
		if !slices.Contains(b, n) && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// RemoveZeros drops the names whose amount is zero.
func RemoveZeros(l corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{}
	for n, q := range l {
		if !q.IsZero() {
			out[n] = q
		}
	}
	return out
}

// IsNegative lists the names whose amount is below zero.
func IsNegative(l corev1.ResourceList) []corev1.ResourceName {
	var out []corev1.ResourceName
	for n, q := range l {
		if q.Sign() < 0 {
			out = append(out, n)
		}
	}
	return out
}

// PrettyPrint is kube-apiserver's rendering of a list in quota errors:
// name=amount, by name, comma separated.
func PrettyPrint(l corev1.ResourceList) string {
	parts := make([]string, 0, len(l))
	for _, n := range ResourceNames(l) {
		q := l[n]
		parts = append(parts, string(n)+"="+q.String())
	}
	return strings.Join(parts, ",")
}

// PrettyPrintNames joins names, sorted, with commas.
func PrettyPrintNames(names []corev1.ResourceName) string {
	s := make([]string, len(names))
	for i, n := range names {
		s[i] = string(n)
	}
	sort.Strings(s)
	return strings.Join(s, ",")
}

func containsPrefix(prefixes []string, n corev1.ResourceName) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(string(n), p) {
			return true
		}
	}
	return false
}

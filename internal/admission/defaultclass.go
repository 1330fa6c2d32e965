package admission

import (
	"cmp"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NewestDefault is the default class among classes, as kube-apiserver's
// DefaultStorageClass and DefaultIngressClass pick it: the newest of those
// isDefault marks, by name on a tie (so that two defaults created in the
// same second still give one answer); the zero value when none is marked.
func NewestDefault[T metav1.Object](classes []T, isDefault func(T) bool) T {
	var best T
	found := false
	for _, c := range classes {
		if !isDefault(c) {
			continue
		}
		if !found || newer(c, best) {
			best, found = c, true
		}
	}
	return best
}

func newer(x, y metav1.Object) bool {
	tx, ty := x.GetCreationTimestamp().UnixNano(), y.GetCreationTimestamp().UnixNano()
	if c := cmp.Compare(ty, tx); c != 0 {
		return c < 0
	}
	return strings.Compare(x.GetName(), y.GetName()) < 0
}

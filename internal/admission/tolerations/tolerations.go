package tolerations

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// Superset says whether ss tolerates every taint t tolerates. It is
// conservative: an operator other than Equal (or empty) and Exists never
// covers anything but an identical toleration.
func Superset(ss, t corev1.Toleration) bool {
	if equality.Semantic.DeepEqual(&t, &ss) {
		return true
	}
	// An empty key with Exists matches every key.
	if t.Key != ss.Key && (ss.Key != "" || ss.Operator != corev1.TolerationOpExists) {
		return false
	}
	// An empty effect matches every effect.
	if t.Effect != ss.Effect && ss.Effect != "" {
		return false
	}
	// A bounded NoExecute toleration covers only shorter-bounded ones.
	if ss.Effect == corev1.TaintEffectNoExecute && ss.TolerationSeconds != nil {
		if t.TolerationSeconds == nil || *t.TolerationSeconds > *ss.TolerationSeconds {
			return false
		}
	}
	switch ss.Operator {
	case corev1.TolerationOpEqual, "":
		return t.Operator == corev1.TolerationOpEqual && t.Value == ss.Value
	case corev1.TolerationOpExists:
		return true
	}
	return false
}

// Merge returns first followed by second without the tolerations another
// one covers; of two equal tolerations the first is kept. The inputs are
// not changed.
func Merge(first, second []corev1.Toleration) []corev1.Toleration {
	all := make([]corev1.Toleration, 0, len(first)+len(second))
	all = append(append(all, first...), second...)
	var merged []corev1.Toleration
next:
	for i, t := range all {
		for _, m := range merged {
			if Superset(m, t) {
				continue next
			}
		}
		for _, later := range all[i+1:] {
			if !equality.Semantic.DeepEqual(&t, &later) && Superset(later, t) {
				continue next
			}
		}
		merged = append(merged, t)
	}
	return merged
}

// Allowed says whether every toleration of ts is covered by one of the
// whitelist; an empty whitelist allows everything.
func Allowed(ts, whitelist []corev1.Toleration) bool {
	if len(whitelist) == 0 {
		return true
	}
next:
	for _, t := range ts {
		for _, w := range whitelist {
			if Superset(w, t) {
				continue next
			}
		}
		return false
	}
	return true
}

package quota

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// RequiresReplenish says whether an update from old to cur may have
// released quota, so that the quotas of the namespace are recalculated:
// kube-controller-manager's default update filter. Deletions always
// release; creations never do.
//
//   - pods: resources resized (a container status's resources changed),
//     moved in or out of the Terminating scope, or no longer charged
//     (finished, or past their deletion grace period at now);
//   - services: the type changed between ClusterIP-like, NodePort and
//     LoadBalancer;
//   - persistentvolumeclaims: every update, since kube compares the
//     allocated storage of old and new by pointer, which always differs.
func RequiresReplenish(gr schema.GroupResource, old, cur runtime.Object, now time.Time) bool {
	switch gr {
	case schema.GroupResource{Resource: "pods"}:
		o, err1 := toPod(old)
		c, err2 := toPod(cur)
		if err1 != nil || err2 != nil {
			return false
		}
		if resized(o, c) || isTerminating(o) != isTerminating(c) {
			return true
		}
		p := &pods{opts: PodOptions{Now: func() time.Time { return now }}}
		return p.counts(o) && !p.counts(c)
	case schema.GroupResource{Resource: "services"}:
		o, ok1 := old.(*corev1.Service)
		c, ok2 := cur.(*corev1.Service)
		return ok1 && ok2 && quotaServiceType(o) != quotaServiceType(c)
	case schema.GroupResource{Resource: "persistentvolumeclaims"}:
		_, err1 := toClaim(old)
		_, err2 := toClaim(cur)
		return err1 == nil && err2 == nil
	}
	return false
}

// resized says whether a container (or init container) present in both
// reports other resources in cur's status than in old's.
func resized(old, cur *corev1.Pod) bool {
	changed := func(olds, curs []corev1.ContainerStatus) bool {
		for i := range olds {
			for j := range curs {
				if curs[j].Name == olds[i].Name {
					if !apiequality.Semantic.DeepEqual(olds[i].Resources, curs[j].Resources) {
						return true
					}
					break
				}
			}
		}
		return false
	}
	return changed(old.Status.ContainerStatuses, cur.Status.ContainerStatuses) ||
		changed(old.Status.InitContainerStatuses, cur.Status.InitContainerStatuses)
}

// quotaServiceType folds the types that quota does not tell apart.
func quotaServiceType(svc *corev1.Service) corev1.ServiceType {
	switch svc.Spec.Type {
	case corev1.ServiceTypeNodePort, corev1.ServiceTypeLoadBalancer:
		return svc.Spec.Type
	}
	return ""
}

// Package priority is kube-apiserver's Priority admission plugin, mutating
// for pods and validating for PriorityClasses.
//
// # Pods (Admit)
//
// On create the pod's priorityClassName is resolved: an empty name takes
// the globalDefault class (the lowest valued one if a race left several)
// or, without one, priority 0 and preemptionPolicy PreemptLowerPriority
// with the name left empty; a named class that does not exist is a 403.
// The pod gets the class's value as spec.priority and, when the class has
// one, its preemptionPolicy; a pod that already carries a different
// priority or preemptionPolicy is refused with 403. The system classes
// (system-cluster-critical, system-node-critical) are ordinary stored
// PriorityClasses here as in kube-apiserver, usable in every namespace:
// 1.37's plugin has no namespace restriction for them (that check left the
// plugin in 1.17; ResourceQuota's limitedResources took its place).
//
// On update a pod that drops spec.priority or spec.preemptionPolicy gets
// the stored values back, so validation sees no change to them.
//
// # PriorityClasses (Validate)
//
// Creating a second globalDefault class, or marking another one default,
// is refused with 403 naming the existing default.
//
// # Not done
//
// kube-apiserver's plugin also resolves priorities of scheduling PodGroups
// and CompositePodGroups behind the GenericWorkload (beta, off by default),
// PodGroupPreemptionPolicy and CompositePodGroup (alpha, off) gates; those
// resources are not served, so this plugin ignores them.
package priority

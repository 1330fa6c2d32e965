// Package quota computes what an object consumes of a ResourceQuota: the
// usage evaluators kube-apiserver's ResourceQuota admission plugin uses
// (k8s.io/kubernetes pkg/quota/v1/evaluator/core and the generic object
// count of k8s.io/apiserver pkg/quota/v1/generic), and the ResourceList
// arithmetic they share.
//
// # Evaluators
//
// An Evaluator is one resource's view of quota: which writes change usage
// (Handles), which quota resource names it charges (MatchingResources),
// which scopes an object falls in (MatchingScopes, Matches), what a quota
// requires the object to state (Constraints) and what it consumes
// (Usage). NewRegistry holds kube-apiserver's set:
//
//   - pods: count/pods, pods, cpu, memory, ephemeral-storage and their
//     requests./limits. forms, hugepages-*, requests.<extended resource>;
//     scopes Terminating, NotTerminating, BestEffort, NotBestEffort,
//     PriorityClass and CrossNamespacePodAffinity;
//   - services: count/services, services, services.nodeports,
//     services.loadbalancers;
//   - persistentvolumeclaims: count/persistentvolumeclaims,
//     persistentvolumeclaims, requests.storage and their
//     <class>.storageclass.storage.k8s.io/ forms; scope
//     VolumeAttributesClass;
//   - configmaps, secrets, replicationcontrollers, resourcequotas: their
//     count/ name and legacy name; every other resource: count/<resource>.<group>.
//
// # What is different
//
// Admission evaluates the object given; CalculateUsage adds up what is
// stored in a namespace (kube's UsageStats), for the resourcequota
// controller. resourceclaims are counted as objects only: the DRA
// evaluator's per-device-class names are not supported.
package quota

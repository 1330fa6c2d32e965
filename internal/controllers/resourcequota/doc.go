// Package resourcequota is the resource quota controller: it keeps the
// status of every ResourceQuota current, hard as the spec's and used as
// what the namespace's stored objects consume, as
// kube-controller-manager's "resourcequota" controller does. The
// ResourceQuota admission plugin charges each write against that status;
// this controller is what gives quota back when objects go.
//
// # Triggers
//
// A quota is recalculated when it appears or its spec.hard changes
// (from an informer over resourcequotas; the controller's own status
// writes change neither), when an object it counts in its namespace is
// deleted or an update may have released usage (a pod finished, resized
// or moved across the Terminating scope; a service's type changed; any
// claim update: quota.RequiresReplenish), and every ResyncPeriod (5m,
// kube-controller-manager's --resource-quota-sync-period default). The
// deletions and updates come from one watch of the whole store; a quota
// is replenished when its status.hard names something the object's
// resource is charged under.
//
// # Sync
//
// One worker takes quotas from a workqueue (a failed sync is retried
// after 5ms, doubling up to 1000s) and reads the quota and the objects it
// counts from storage: pods, services and claims decoded, every other
// quotable resource (namespaced, stored, with create, list, watch and
// delete, not ignored by quota) counted by its keys. Usage follows the
// evaluators of internal/quota, scopes and scopeSelector included
// (quota.CalculateUsage). The status is written, with field manager
// "kube-controller-manager" and guarded by the quota's resourceVersion,
// only when hard or used changed; a conflict is retried.
//
// # What is different
//
// kube-controller-manager reads informer caches, runs 5 workers
// (--concurrent-resource-quota-syncs) and gives quotas whose status lacks
// usage a queue of their own; this controller reads storage with one
// worker and one queue. It learns of custom resources at each sync rather
// than by rediscovery every 30s. resourceclaims are counted as objects
// only (internal/quota has no DRA device evaluator). The pod evaluator
// uses the default of kube-controller-manager's PodLevelResources and
// PodLevelResourcesFixKubeletQOSClass gates (both on).
package resourcequota

// Package resourcequota is the ResourceQuota admission plugin: a write
// is admitted only if what it consumes fits every ResourceQuota of its
// namespace that covers it, and only once that usage has been added to
// those quotas' status.used.
//
// # Mapping to kube-apiserver
//
// kube-apiserver's k8s.io/apiserver pkg/admission/plugin/resourcequota is
// a validating plugin, and so is this one. Validate skips cluster-scoped
// writes, namespace creation, deletes and connects, the resources quota
// ignores (events, reviews, bindings, componentstatuses) and writes the
// resource's evaluator (package internal/quota) does not handle. For the
// rest, check mirrors kube-apiserver's CheckRequest: Constraints ("failed
// quota: <name>: must specify ..."), a quota whose usage the controller
// has not recorded ("status unknown for quota: ..."), negative usage, the
// configuration's limitedResources ("insufficient quota to consume: ...",
// "insufficient quota to match these scopes: ..."), and the limits
// ("exceeded quota: <name>, requested: ..., used: ..., limited: ...").
// Updates charge only growth, to the quotas that already covered the old
// object.
//
// # Batches and conflicts
//
// Requests of one namespace are checked one batch at a time: each request
// in a batch is charged against the usage the ones before it left, then
// every changed quota is written with its resourceVersion, so that a
// concurrent writer makes the write conflict. The quotas that conflicted
// are read again and the batch re-checked against them, up to three
// times; a request is admitted only when every write carrying its usage
// succeeded, else it gets the last write error. Dry runs are checked but
// not charged. A request waits at most ten seconds for its batch
// ("resource quota evaluation timed out").
//
// kube-apiserver runs five worker goroutines over a work queue; here the
// first waiting request of a namespace checks its batch on its own
// goroutine and hands the namespace to the first request of the next, so
// the plugin owns no goroutine.
//
// # Configuration
//
// New takes the content of the AdmissionConfiguration entry (kind
// Configuration of apiserver.config.k8s.io/v1, or
// resourcequota.admission.k8s.io/v1beta1 or v1alpha1), decoded strictly;
// empty content is no configuration.
package resourcequota

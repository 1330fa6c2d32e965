// Package defaults fills in the fields kube-apiserver defaults when it
// decodes a request, so that what portcullis stores and returns (for
// example with kubectl get -o yaml) matches the reference.
//
// Apply works in place on the typed k8s.io/api objects and is a no-op for
// types it does not know. It runs before validation, as in kube-apiserver,
// where the validators rely on defaulted fields (a webhook's timeout, a
// pod's restart policy) being set.
//
// What the server sets outside defaulting (a namespace's phase and
// finalizer, a pod's status and QoS class, allocated cluster IPs) belongs to
// the API layer, not here. One conversion step is here: a Secret's
// stringData is merged into data, as kube-apiserver does on decode.
package defaults

// Package serviceaccount is the service account controller: every
// namespace that is active has a ServiceAccount named "default", created
// when the namespace appears and again whenever it is deleted, as
// kube-controller-manager's "serviceaccount" controller does. The
// ServiceAccount admission plugin gives pods without an account that one.
//
// Two informers are event sources only: a namespace that appears or
// changes, and the namespace of a service account that is deleted, are
// queued (each once). One worker takes them in order and reads the
// namespace and its account from storage, not from a cache, so that it
// never creates an account on a stale view; a create that finds the
// account already there is success. A namespace that is not active is
// skipped: it is being emptied, and creating in it fails anyway. A failed
// sync is retried after 5ms, doubling up to 1000s, as
// kube-controller-manager's default rate limiter does.
//
// The accounts are created with no content but their name, like
// kube-controller-manager's, under its field manager name.
package serviceaccount

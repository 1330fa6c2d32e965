// Package rootcacertpublisher is the root CA certificate publisher: every
// namespace has a ConfigMap kube-root-ca.crt whose ca.crt is the CA
// bundle that verifies the API server, annotated with
// kubernetes.io/description, as kube-controller-manager's
// "root-ca-cert-publisher" controller keeps it. Pods read it through the
// kube-api-access-* volume the ServiceAccount admission plugin adds.
//
// Two informers are event sources only: a namespace seen for the first
// time (whatever its phase) or changed while active, and the namespace of
// a kube-root-ca.crt ConfigMap that is written or deleted, are queued.
// One worker reads the ConfigMap from storage and creates it when it is
// missing, or updates it (guarded by its resourceVersion) when its data is
// not exactly {ca.crt: bundle} or the description is empty; anything else
// on it is kept. A create into a namespace that is gone or terminating is
// given up; other failures are retried after 5ms, doubling up to 1000s.
//
// Each sync is counted in root_ca_cert_publisher_sync_total and timed in
// root_ca_cert_publisher_sync_duration_seconds, labelled with the HTTP
// code of its outcome, as in kube-controller-manager.
package rootcacertpublisher

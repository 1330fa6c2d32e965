// Package policystatus keeps status.observedGeneration and
// status.typeChecking of every ValidatingAdmissionPolicy current, as
// kube-apiserver's validatingadmissionpolicy-status controller does: each
// policy whose generation is newer than its observed generation is type
// checked against the OpenAPI schemas of the kinds it matches, and the
// warnings are written to its status.
//
// Policies arrive from an informer into a queue that keeps one entry per
// name (the newest version wins). A failed write is retried with a
// growing delay unless a newer version arrived meanwhile; a policy
// deleted since is dropped.
package policystatus

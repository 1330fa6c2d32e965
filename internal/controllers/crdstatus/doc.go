// Package crdstatus writes the status of CustomResourceDefinitions that
// kube-apiserver's naming, establishing and API approval controllers
// write: status.acceptedNames and the NamesAccepted, Established and
// KubernetesAPIApprovalPolicyConformant conditions. The rules themselves
// are crd/definition's (NextStatus); this package runs them.
//
// # Loop
//
// An informer delivers every definition into a map of the newest known
// versions; each arrival queues its name. One loop takes names in order
// and writes what NextStatus changes through /status, guarded by the
// resourceVersion it read. A write that conflicts, or finds the
// definition gone, is dropped: the newer version or the deletion arrives
// through the informer and queues the name again. Any other failure is
// retried with a growing delay.
//
// # Names
//
// A name is claimed by the definition whose status.acceptedNames holds
// it, so the view of the other definitions must be current: the
// controller remembers what it has just written before the informer
// delivers it, decides nothing before the first list is in, and, when a
// definition is deleted or its accepted names change, queues the other
// definitions of its group, whose conflicts may be gone. One loop means
// two definitions are never given the same name at once.
//
// A definition is established on the write after the one that accepts its
// names, as in kube-apiserver, where a separate controller does it once
// the names are stored.
package crdstatus

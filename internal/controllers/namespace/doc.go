// Package namespace is the namespace controller: it creates the system
// namespaces at start and finalizes terminating namespaces, as
// kube-controller-manager's namespace controller and kube-apiserver's
// system-namespaces controller do.
//
// A namespace being deleted keeps the "kubernetes" finalizer in its spec
// until everything in it is gone. The controller deletes each object in
// it through the API (so finalizers and grace periods hold objects back
// as they would for a client), and once nothing is left it removes the
// finalizer, which lets the namespace go.
//
// It looks again at every change of a namespace (a watch of the store)
// and every second, since the contents it waits for are many resources
// it does not watch.
package namespace

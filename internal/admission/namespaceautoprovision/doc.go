// Package namespaceautoprovision is kube-apiserver's NamespaceAutoProvision
// admission plugin (mutating only): the create of anything in a namespace
// that does not exist first creates that namespace, with nothing but its
// name, through the API (so it passes that create's own admission), so
// clients need not create namespaces before using them.
//
// Dry runs create nothing; creating a Namespace itself, by kind, is left
// alone; a namespace created concurrently (AlreadyExists) is success. A
// failed read or create refuses the request with 403 wrapping the error,
// as in kube-apiserver.
package namespaceautoprovision

// Package namespaceexists is kube-apiserver's NamespaceExists admission
// plugin (validating only): a create, update or delete of anything in a
// namespace (other than a Namespace itself, by kind, so namespaces/status
// and namespaces/finalize pass too) is refused with the namespace's own
// 404 when the namespace does not exist. Other read failures are 500s.
//
// kube-apiserver reads an informer and, on a miss, the store; New takes one
// read that the caller wires to the store, which answers both.
package namespaceexists

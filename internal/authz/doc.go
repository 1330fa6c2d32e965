// Package authz is the authorization stage: the attributes of a request as
// kube-apiserver derives them, the chain of authorizers (asked in order
// until one allows or denies; the zero Decision denies), the superuser rule
// for system:masters, and the HTTP filter that answers 403 in
// kube-apiserver's words. The authorizers themselves live in subpackages:
// rbac, node, webhook; authzconfig builds the chain from configuration.
package authz

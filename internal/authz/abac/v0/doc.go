// Package v0 is the legacy, unversioned line of an ABAC policy file: a flat
// object with user, group, readonly, resource and namespace and no
// apiVersion or kind (or apiVersion abac.authorization.kubernetes.io/v0,
// kind Policy).
//
// The type is a runtime.Object so that apimachinery's serializers decode it
// exactly as kube-apiserver does, with the same error texts. Those texts
// name the Go types ("Go struct field Policy.user"), which is why the
// package is called v0 and the type Policy. Its meaning (which fields
// default to what) is the abac package's business, not this one's.
package v0

// Package v1beta1 is the versioned line of an ABAC policy file:
// apiVersion abac.authorization.kubernetes.io/v1beta1, kind Policy, and a
// spec with user, group, readonly, apiGroup, resource, namespace and
// nonResourcePath.
//
// The type is a runtime.Object so that apimachinery's serializers decode it
// exactly as kube-apiserver does, with the same error texts. Those texts
// name the Go types ("Go struct field PolicySpec.spec.readonly", "type
// v1beta1.PolicySpec"), which is why the package and types are named as
// they are. Their meaning is the abac package's business.
package v1beta1

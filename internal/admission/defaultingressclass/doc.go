// Package defaultingressclass is the DefaultIngressClass admission plugin:
// an Ingress created without a class gets the cluster's default
// IngressClass.
//
// # Mapping to kube-apiserver
//
// kube-apiserver's plugin of the same name is a mutating plugin that acts
// on CREATE of networking.k8s.io ingresses (no subresource) only:
//
//   - an Ingress with spec.ingressClassName set, or with the legacy
//     kubernetes.io/ingress.class annotation (any value), is left alone;
//   - otherwise the default classes are those annotated
//     ingressclass.kubernetes.io/is-default-class: "true"; when several are,
//     the newest by creationTimestamp wins (ties: the smallest name) - the
//     plugin does not refuse the Ingress; with none the Ingress stays
//     without a class;
//   - a failure to list the classes refuses the request as Forbidden, and
//     an object that is not an Ingress is an internal error.
package defaultingressclass

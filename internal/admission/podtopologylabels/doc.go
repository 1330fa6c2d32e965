// Package podtopologylabels is kube-apiserver's PodTopologyLabels admission
// plugin (mutating only): when a pod is bound to a node (a create of
// pods/binding whose target kind is Node) or created with spec.nodeName
// already set, the node's topology.kubernetes.io/zone and
// topology.kubernetes.io/region labels are copied onto the pod (onto the
// Binding, whose labels the binding subresource copies to the pod),
// overwriting the pod's own values, so workloads can read their zone
// through the downward API.
//
// A missing node copies nothing, as in kube-apiserver, so a binding to a
// node not yet registered still succeeds. The plugin does nothing unless
// the PodTopologyLabelsAdmission feature gate is on (beta, on by default
// since 1.35, so on in 1.37); New takes the gate's value.
package podtopologylabels

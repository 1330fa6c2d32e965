// Package extendedresourcetoleration is kube-apiserver's
// ExtendedResourceToleration admission plugin (mutating only): on create
// and update of a pod (not its subresources), every extended resource the
// init or regular containers request (a name outside kubernetes.io/ with a
// domain, e.g. example.com/gpu) gets a toleration "<name> Exists
// NoSchedule", so pods that ask for such a device tolerate the taint an
// operator puts on the nodes that have it. Tolerations are added in name
// order; one with the same key, operator, value and effect is replaced
// (e.g. one carrying tolerationSeconds), an identical one is kept.
package extendedresourcetoleration

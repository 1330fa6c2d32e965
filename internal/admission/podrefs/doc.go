// Package podrefs reads the objects a pod spec names the way
// kube-apiserver's pod visitors read them, for the admission plugins that
// check those references (NodeRestriction, ServiceAccount).
package podrefs

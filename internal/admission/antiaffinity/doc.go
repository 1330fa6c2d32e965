// Package antiaffinity is kube-apiserver's LimitPodHardAntiAffinityTopology
// admission plugin (validating only): on create and update of a pod (not
// its subresources) it refuses, with 403, any required pod anti-affinity
// term whose topologyKey is not kubernetes.io/hostname, so a pod cannot
// keep a whole zone or region free of its peers. Preferred terms are not
// limited.
package antiaffinity

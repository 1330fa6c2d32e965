// Package denyserviceexternalips is kube-apiserver's DenyServiceExternalIPs
// admission plugin (validating only): on create and update of a service
// (not its status) it refuses, with 403 "Use of external IPs is denied by
// admission control", any spec.externalIPs entry the stored service did
// not already have. Existing entries may be kept or removed, so services
// from before the plugin was enabled can still be updated and cleaned up.
package denyserviceexternalips

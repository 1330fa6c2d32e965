// Package crd serves the custom resources that CustomResourceDefinitions
// define. Its Catalog follows the CRDs in the store and, for every CRD
// that is established, puts one registry resource per served version in
// the registry (registry.SetCustom), each carrying its compiled schema
// (internal/crd/schema), its conversion between versions and its field
// managers. The REST handlers then serve custom resources like built-in
// ones, by the registry entry alone.
//
// # Changes
//
// A CRD's resources are compiled once per resourceVersion of the CRD and
// reused until it changes. After each change the whole custom set is
// replaced at once (readers never see half of it) and the publishers
// (discovery, OpenAPI) are told, so clients find a new resource as soon
// as it is served.
//
// # Deletion
//
// While a CRD is being deleted its resources stay served for reading and
// deleting, but creates are refused; the crdcleanup controller removes
// the objects and then the CRD's finalizer.
package crd

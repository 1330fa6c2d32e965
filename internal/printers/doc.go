// Package printers turns API objects into the server-side tables that
// `kubectl get` asks for with
// "Accept: application/json;as=Table;v=v1;g=meta.k8s.io".
//
// # Pieces
//
// Table is the single entry point. It looks the object's Go type up in a
// registry of printers (one small file per API group registers its own),
// and falls back to the default table (Name, Created At) that
// kube-apiserver serves for resources without a printer. Lists are split
// with the apimachinery meta helpers, so each printer only ever sees one
// object; an empty list still gets the columns of its item type.
//
// # Compatibility
//
// Column names, order, types, priorities and cell formats follow
// kube-apiserver: the server always emits the wide (priority 1) columns and
// kubectl hides them unless asked for -o wide. Ages are rendered with
// k8s.io/apimachinery/pkg/util/duration.HumanDuration relative to the
// caller's clock, so tests can pin it.
//
// # Row objects
//
// Each row carries the object as the request's includeObject policy asks:
// the whole object (Object), its PartialObjectMetadata (Metadata, the
// default, which kubectl needs for --show-labels and -A), or nothing (None).
package printers

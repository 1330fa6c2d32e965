// Package rest serves the resource endpoints under /api and /apis for the
// typed objects of k8s.io/api, the way kube-apiserver's generic registry
// does: get, list (selectors, pagination, resourceVersion semantics),
// watch, create, update, patch (JSON, merge, strategic merge and
// server-side apply with managed fields), delete with finalizers and
// grace periods, deletecollection, the status and scale subresources,
// connectors such as serviceaccounts/token, and the virtual review
// resources. Objects are stored as protobuf in a storage.Store whose
// revision is their resourceVersion; admission and validation run on the
// way in. It also runs the namespace controller that empties terminating
// namespaces.
package rest

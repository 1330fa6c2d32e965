// Package rest serves the resource endpoints under /api and /apis for the
// typed objects of k8s.io/api, the way kube-apiserver's generic registry
// does: get, list (selectors, pagination, resourceVersion semantics),
// watch, create, update, patch (JSON, merge, strategic merge and
// server-side apply with managed fields), delete with finalizers and
// grace periods, deletecollection, the status and scale subresources,
// connectors such as serviceaccounts/token, and the virtual review
// resources. Subresources kube-apiserver has and this server does not
// serve are answered "not supported" (405), not a bare 404.
//
// Objects are stored through the object layer (internal/objects), whose
// revision is their resourceVersion; defaulting, admission and validation
// run on the way in. The handler is built after the admission chain and
// the authorizer it uses, and refuses to be built without a chain or a
// validator.
//
// The in-process client (client.go: Create, Apply, ApplyStatus, Remove,
// FinalizeNamespace) gives the server's own writers — the controllers and
// the bootstrap — the same write path as a client's.
package rest

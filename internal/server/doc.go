// Package server runs portcullis: it prepares the data directory (key
// material, admin kubeconfig, store), builds the API one way — the object
// layer, then authorization, authentication and admission over it, then
// the REST handlers, then the controllers (api.go) — and serves it over
// HTTPS until its context ends, then shuts down gracefully.
//
// The request path, outermost first:
//
//	panic recovery -> request info and state -> authentication ->
//	tracing -> metrics -> audit -> impersonation -> authorization ->
//	router (/metrics, resources, health, version, OpenAPI, profiling,
//	issuer discovery, API discovery)
//
// Each stage is a plain http.Handler wrapper; the order lives in one
// place, api.filters. What each stage does lives in its own package; this
// one holds no controller or domain logic. docs/architecture.md draws the
// whole picture, and TestOneWayWiring keeps the dependency graph one way.
package server

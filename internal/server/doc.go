// Package server runs portcullis: it prepares the data directory (key
// material, admin kubeconfig, store), builds the request path and serves
// it over HTTPS until its context ends, then shuts down gracefully.
//
// The request path, outermost first:
//
//	panic recovery -> request info and state -> authentication ->
//	metrics -> audit -> router (health, version, metrics, discovery,
//	OpenAPI, resources)
//
// Each stage is a plain http.Handler wrapper; the order lives in one place,
// handler.go.
package server

// Package controllertest gives controller tests what a running server
// gives its controllers: a real store in a temporary directory, the
// object layer over it and the REST handler's in-process client (with an
// empty admission chain), so that a test sees the writes a controller
// makes exactly as a client would.
package controllertest

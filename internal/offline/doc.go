// Package offline runs requests through the request path of `portcullis
// serve` without a cluster: `portcullis admit` and `portcullis test`.
//
// # Inputs
//
// The server's own configuration (server.Config, as the command line sets
// it), cluster state as manifests (ReadManifests: files and directories of
// YAML or JSON documents, Lists expanded), recorded webhook answers by
// webhook name, and requests (Request: an operation on an object as a
// user, with kind portcullis.dev/v1alpha1 AdmissionRequest in files, or
// any object, which is created).
//
// # The run
//
// Start builds the server in process (server.StartInProcess: the same
// filters, authenticators, authorizers, admission chain and REST handlers
// as serve, over a store in memory) and loads the state. Each request is
// then sent to it as an HTTP request of the client it stands for, in
// order; what a request writes stays for the next ones, as on a server.
// What the answer and the request's decision trace say is a Result:
// identity, authorization, each admission step with its policies,
// bindings and webhooks, warnings, audit annotations, and the final object
// or the Status kubectl would print.
//
// # Tests
//
// AdmissionTest files (ReadTests) name state, flags, webhook answers and
// cases with expected outcomes; RunTest runs one and reports each case,
// and WriteJUnit writes the reports as JUnit XML.
package offline

// Package webhookclient calls the webhooks that API objects name by a
// clientConfig: admission webhooks (admissionregistration.k8s.io) and
// the conversion webhooks of CustomResourceDefinitions
// (apiextensions.k8s.io). It holds what the two share in kube-apiserver;
// what a review holds and what an answer means stays with each caller.
//
// # Pieces
//
// An Endpoint is a clientConfig made once: an https URL, or a Service
// reference that a ServiceResolver turns into an address to dial at each
// call (EndpointsResolver takes the first ready address of the Service's
// Endpoints), and the CA bundle that verifies the webhook's certificate.
// For a Service, the TLS server name is <name>.<namespace>.svc whatever
// address is dialled.
//
// A Client keeps one http.Client per CA bundle, server name and
// credential, so connections (HTTP/2 where the webhook offers it) are
// reused across calls; Retain drops those no configured webhook needs.
// Post sends a JSON body and returns the status, header and body of the
// answer, bounded to MaxResponseBytes; the caller reads the answer.
//
// # Deadlines
//
// A call ends with its context. Like kube-apiserver, Post tells the
// webhook the time it has left in the timeout query parameter, rounded up
// to whole seconds; Request.Timeout bounds a call further, as the 30
// seconds of kube-apiserver's webhook clients do.
package webhookclient

// Package tracing is kube-apiserver's --tracing-config-file: a
// TracingConfiguration (apiserver.config.k8s.io) names an OTLP gRPC
// collector and a sampling rate, and every request to the server becomes
// a span sent there ("GET /api/v1/namespaces/{:namespace}/pods"), joined
// to the caller's trace when a privileged caller sends a W3C traceparent.
//
// Without the flag nothing is exported, but trace context still flows
// (for webhooks), as in kube-apiserver.
package tracing

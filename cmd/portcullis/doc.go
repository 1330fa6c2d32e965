// Command portcullis is a lean, Kubernetes-compatible API server built
// around the API access-control chain.
package main

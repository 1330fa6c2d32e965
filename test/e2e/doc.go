// Package e2e holds the end-to-end tests: each starts the real portcullis
// binary (see package harness) and drives it as a user would, with a kubectl
// built from the k8s.io/kubectl module and with client-go.
//
// # Running
//
//	go test ./test/e2e/...
//
// The first run builds kubectl (a few minutes on two cores) and caches it
// under os.UserCacheDir()/portcullis-test; later runs reuse it. -short skips
// the crash test.
//
// # Layout
//
// One file per theme: kubectl_*_test.go drive kubectl, clientgo_*_test.go
// use client-go, http_test.go sends raw requests for what neither client
// sends (oversized and malformed bodies, health and metrics endpoints), and
// crash_test.go kills the server during writes. Each top-level test starts
// its own server, so tests run in parallel and a failing one shows its own
// server's log.
package e2e

// Package harness runs the real portcullis binary and a real kubectl for the
// end-to-end tests, the way a user would on a fresh machine.
//
// # Binaries
//
// BuildPortcullis builds ./cmd/portcullis once per test process into a
// temporary directory (Main removes it when the tests end); setting
// PORTCULLIS_BINARY uses a prebuilt binary instead. KubectlPath builds
// ./test/kubectl, an unmodified kubectl from the k8s.io/kubectl module, and
// caches it under os.UserCacheDir()/portcullis-test, keyed by go.sum and the Go
// version, so later runs and other test packages reuse it. Concurrent builders
// serialise on a lock file and publish the binary with an atomic rename.
//
// # Servers
//
// Start launches `portcullis serve` on a fresh data directory and a free port,
// waits for its ready log line and returns a Server that knows its URL and
// admin kubeconfig. Stop (SIGTERM), Kill (SIGKILL) and Restart drive the
// process; t.Cleanup stops and reaps it, and the server's output is written to
// the test log when the test failed. Kubectl, Client, RESTConfig and
// HTTPClient talk to it as the generated admin identity. StartReplica starts
// another server with a copy of one's key material, for replicas on one etcd.
package harness

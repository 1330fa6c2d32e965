// Command load measures portcullis the way issue 2 sets its targets: N
// concurrent client-go clients over HTTPS, and the cost of starting.
//
// # Load
//
// Against a running server:
//
//	portcullis serve --data-dir /tmp/p &
//	go run ./hack/load -kubeconfig /tmp/p/admin.kubeconfig -clients 32 -duration 10s -op create
//
// Each client has its own client-go clientset and its own connections (as
// separate processes would) with client-side rate limiting off. -op create
// creates small ConfigMaps; get reads random ones of -objects pre-created
// ConfigMaps; list lists those; mixed does 1 create : 8 gets : 1 list. The
// work happens in a fresh namespace that is deleted afterwards (-keep keeps
// it). It prints the throughput and the p50/p90/p99/max latency of each op.
//
// # Start-up
//
//	go build -o /tmp/portcullis ./cmd/portcullis
//	go run ./hack/load -startup /tmp/portcullis -runs 5
//
// starts the binary -runs times on an empty data directory and reports the
// time from exec to the ready log line and to the first /readyz "ok", the
// resident memory (VmRSS from /proc) after -idle, and the same start-up
// times for a restart on the now existing data directory.
package main

// Package etcdtest runs a real etcd cluster inside a test process, for the
// tests of portcullis on etcd: one or three members of the etcd server
// the module already depends on (go.etcd.io/etcd/server/v3/embed), on
// 127.0.0.1.
//
// # Lifecycle
//
// Start returns once every member is ready (it published itself to the
// cluster and a leader exists). Each member keeps its data directory
// under the test's t.TempDir(), so StopMember followed by RestartMember
// brings back the same member with its log, on the same ports: etcd names
// members by their peer URLs, so the ports must not change. Every member
// still running, and every client made by Client, is closed when the test
// ends.
//
// # Ports
//
// Ports are picked at random in 24000-24999 and probed with a listen
// before use, the range set aside for these tests; a port taken between
// the probe and etcd's listen makes Start retry on fresh ports.
//
// # TLS
//
// With Options.TLS the client URLs are https and require a client
// certificate signed by a CA generated for the cluster; Certs names the
// files, for a client such as portcullis serve --etcd-cafile/--etcd-certfile/
// --etcd-keyfile. Peer traffic stays plain: it never leaves the process.
//
// # Logs
//
// etcd's own log is discarded; a member that fails reports its error
// through the test instead.
package etcdtest

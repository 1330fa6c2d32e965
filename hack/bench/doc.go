// Command bench runs the same client-go load against kube-apiserver (the
// reference, on its etcd) and portcullis (on its embedded store), in turn,
// on this machine, and prints the ratio portcullis / reference for every
// workload of issue 20.
//
//	go run ./hack/bench [-workloads create-cm-1,get-16] [-reps 3] [-duration 10s] [-warmup 3s] [-o bench.json] [-profiles DIR]
//
// # What it runs
//
// The reference binaries come from PORTCULLIS_REFERENCE_BIN or
// ~/.cache/portcullis-reference/bin (hack/reference/build.sh builds them);
// portcullis is built from this checkout into a temporary directory. For
// each workload and repetition the two servers run interleaved (reference,
// portcullis, reference, ...), each started fresh on the same ports with an
// empty data directory, with RBAC/Node authorization and the same PKI (an
// admin client certificate in system:masters, one serving certificate, one
// service-account key pair, made once per bench run) and kube-apiserver's
// default admission plugins plus NodeRestriction. kube-controller-manager
// does not run beside the reference, so portcullis runs without the
// in-process controllers that stand in for it (service accounts, root CA
// publisher, resource quota, policy status): both hold the same objects
// and do the same work. The pod workloads create the namespace's default
// ServiceAccount themselves, which the ServiceAccount plugin needs.
//
// # Pinning
//
// The servers run under `taskset -c 0`: portcullis, and kube-apiserver AND
// its etcd, which share that one core. The bench re-executes itself under
// `taskset -c 1` before it starts, so the load generator (and its client-go
// decoding) has the other core to itself.
//
// # Measuring
//
// Every client of a run is its own clientset, but all share one rest.Config
// and one HTTP transport: one HTTP/2 connection, more only where the
// server's limit of concurrent streams is reached (the 1,000 watchers).
// After the objects a workload needs exist (and, for the pod workloads, the
// ValidatingAdmissionPolicies deny what they must), the load runs for
// -warmup and then for -duration, the measured window: requests that end
// inside it count, and the server's CPU time (utime+stime from
// /proc/PID/stat, summed over kube-apiserver and etcd) is read when the
// window opens and closes. RSS (VmRSS, summed the same way) is read at its
// end. Every run also records launch to the first /readyz "ok" (for the
// reference: kube-apiserver's launch, with etcd already healthy), and the
// CPU use of the server and of the load generator in % of their one core:
// a server well under 100 % waits (on the disk, a lock) rather than works,
// and a load generator near 100 % (the 1,000 watchers decoding every
// event) is the limit of the figure, not the server.
//
// With -profiles DIR, a CPU profile of the server over each window is
// written to DIR/WORKLOAD-SERVER-REP.pprof (/debug/pprof/profile, on by
// default in both; for the reference it is kube-apiserver's alone).
//
// Each workload's table shows the medians over the repetitions, and a
// ratio row: portcullis / reference as "Nx" where more is better
// (requests/s) and as "1/N" where less is better (latency, CPU, memory,
// start-up). -o writes every run and the medians as JSON.
package main

// Package healthz serves /healthz, /livez and /readyz the way
// kube-apiserver does: named checks, /<endpoint>/<check> for one check,
// ?verbose for a line per check, ?exclude=<check> to skip some.
package healthz

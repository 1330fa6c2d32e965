// Package metrics exposes the server's Prometheus metrics on /metrics, with
// kube-apiserver's names, labels, help texts and buckets so that existing
// dashboards and alerts keep working.
//
// # Pieces
//
// Registry owns a prometheus.Registry with the Go runtime and process
// collectors and the request metrics. Registry.Middleware records every
// request that passes through it:
//
//   - apiserver_request_total{verb,dry_run,group,version,resource,subresource,scope,component,code}
//   - apiserver_request_duration_seconds{verb,dry_run,group,version,resource,subresource,scope,component}
//   - apiserver_current_inflight_requests{request_kind}
//   - apiserver_longrunning_requests{verb,group,version,resource,subresource,scope,component}
//
// Labels follow kube-apiserver: verb is the upper-case reported verb (GET,
// LIST, WATCH, POST, PUT, PATCH, APPLY, DELETE, CONNECT, or "other"), scope
// is resource, namespace or cluster ("" for non-resource requests), and
// non-resource requests have empty group, version and resource labels.
// Registry.Prometheus lets other packages register their own metrics.
//
// # Placement
//
// Middleware reads request.Info from the request State, so it runs after
// the filter that sets it, and inside authorization: kube-apiserver counts
// requests in its instrumented handlers, which a request refused by
// authentication or authorization never reaches. Every request that
// reaches the middleware is counted, so the number of distinct resources
// is capped to keep made-up URLs from growing the series without bound.
package metrics

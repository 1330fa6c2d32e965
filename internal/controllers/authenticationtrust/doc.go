// Package authenticationtrust publishes how this server authenticates
// clients in the kube-system/extension-apiserver-authentication
// ConfigMap, as kube-apiserver's cluster-authentication-trust controller
// does: the client CA bundle and the front-proxy (--requestheader-*)
// settings, which aggregated API servers read to trust the requests this
// server forwards to them.
//
// # Combining
//
// Several servers of one cluster may trust different authorities, so the
// published data is the union of what is stored and what this server
// requires: CA bundles are merged without duplicates (certificates expired
// for more than five minutes are dropped), header lists are merged keeping
// their first order. A server never removes what another published.
//
// # Lifecycle
//
// Sync writes the ConfigMap (after the system namespaces exist) before the
// server reports ready; Run repeats it every minute, which puts back an
// edited or deleted ConfigMap.
package authenticationtrust

// Package discovery serves the API discovery documents derived from the
// registry: the legacy /api, /api/v1, /apis, /apis/<group> and
// /apis/<group>/<version> documents, and the aggregated discovery
// (apidiscovery.k8s.io/v2 APIGroupDiscoveryList) that current clients ask
// for first on /api and /apis. Documents are built once at start-up.
package discovery

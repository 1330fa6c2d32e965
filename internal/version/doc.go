// Package version reports the version of portcullis and of the Kubernetes
// API it serves, as /version and `portcullis version` show them.
package version

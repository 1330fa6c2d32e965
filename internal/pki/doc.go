// Package pki creates and reuses the key material portcullis needs when it
// is started without any: a self-signed CA, a serving certificate for the
// bind address and the loopback names, an admin client certificate in
// system:masters, and the admin kubeconfig that ties them together.
//
// Everything lives under <data-dir>/pki. Files are written atomically
// (temporary file then rename), keys with mode 0600, so an interrupted first
// start never leaves a half-written key behind; later starts load and reuse
// what is there.
package pki

// Command kmsplugin is a KMS v2 plugin for end-to-end tests: the
// in-process plugin of internal/encryption/kmsv2/kmstest as a real process
// on a unix socket. A test steers it while it runs through a JSON control
// file (see kmstest.Control), re-read on every call:
//
//	kmsplugin --listen unix:///tmp/kms/p.sock --control-file /tmp/kms/control.json --key-id key-1
//
// It logs to stderr, including a "kmstest: serving" line once the socket
// listens, and exits 0 on SIGTERM or SIGINT after letting calls in flight
// finish. It is not shipped.
package main

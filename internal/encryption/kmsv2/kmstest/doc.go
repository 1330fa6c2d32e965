// Package kmstest is a KMS v2 plugin for tests: a real gRPC server on a
// unix socket, speaking the plugin contract of k8s.io/kms/apis/v2, whose
// behaviour a test changes while it runs.
//
// It wraps data with AES-256-GCM under a KEK derived from a fixed secret
// and the key id, so that after SetKeyID it still decrypts what it
// encrypted under earlier key ids, as a real KMS keeps old key versions.
// The key id and the annotations are bound as additional data: a DEK
// source presented with another key id or other annotations does not
// decrypt.
//
// Tests steer it with SetKeyID, SetHealthz, SetVersion, SetDelay and
// SetFail, hold calls in flight until they release them with Hold, and
// count its calls with Calls. A process running it (the
// binary test/kmsplugin) is steered through a JSON control file, re-read
// on every call, whose fields override the setters:
//
//	{"keyID": "key-2", "delay": "5s", "failEncrypt": true,
//	 "failDecrypt": false, "failStatus": false, "healthz": "ok", "version": "v2"}
//
// WriteControl writes such a file atomically.
package kmstest

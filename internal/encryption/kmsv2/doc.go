// Package kmsv2 is the KMS v2 envelope encryption provider of an
// EncryptionConfiguration (prefix "k8s:enc:kms:v2:<name>:"), laid out on
// disk as kube-apiserver lays it out, so that data moves between the two.
//
// # Envelope
//
// A provider holds one data encryption key seed (32 random bytes) that the
// KMS plugin has encrypted once, for its current key id. Every write derives
// a fresh AES-256-GCM key from the seed with HKDF-SHA256 (expand only) and 32
// random bytes of info, seals the value with the storage key as additional
// data, and stores the EncryptedObject protobuf message
//
//	encryptedData          = info || nonce || ciphertext || tag
//	keyID                  = the plugin's key id
//	encryptedDEKSource     = the seed as the plugin encrypted it
//	annotations            = what the plugin returned with it
//	encryptedDEKSourceType = HKDF_SHA256_XNONCE_AES_GCM_SEED
//
// encoded by hand (object.go) with the field numbers of kube-apiserver's
// api.proto. Values of the older AES_GCM_KEY type (the source is the AES key
// itself) are read but never written.
//
// # Reads
//
// The decrypted seed of every source seen is kept in a cache keyed by a hash
// of the encrypted source, key id and annotations, so the plugin is asked to
// Decrypt a source once per process (and per day), not once per read. A read
// is stale when its key id is not the current one, so that a rewrite moves
// it to the current key.
//
// # Status and rotation
//
// Run polls the plugin's Status (every minute while healthy, every ten
// seconds while not). Whenever the key id differs from the seed's, a new
// seed is made and encrypted; while it does not, the seed's write lease is
// extended. Without a successful poll for three minutes the lease expires
// and writes fail: an operator rotating the KEK must be able to trust that a
// storage migration started after the key id changed really uses the new
// key. Reads never expire.
//
// Run must run for the provider's life. Without it, a write after the
// lease has ended polls the plugin itself, so writes keep working but a
// key id change is seen only then.
//
// Check makes one Status call for health checks and reports, naming the
// provider, everything wrong with the answer; LastHealth is the result of
// the last poll or Check. Concurrent polls (Run, Check, writes) share one
// Status call at a time.
//
// # Deliberate differences from kube-apiserver
//
// Reads work before the plugin's first Status answer (such reads are never
// stale, the current key id being unknown); kube-apiserver fails them.
// Concurrent cache misses of one DEK source make one Decrypt call. gRPC
// reconnects to a restarted plugin within half a second rather than after
// its default backoff of up to two minutes.
package kmsv2

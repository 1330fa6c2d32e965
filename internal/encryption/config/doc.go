// Package config loads the file named by --encryption-provider-config: an
// EncryptionConfiguration (apiserver.config.k8s.io/v1) that says which
// providers encrypt which resources at rest.
//
// # Loading
//
// Parse (and Load, which reads the file first) decodes the file strictly
// (unknown, duplicate and wrongly-cased fields are errors), applies
// kube-apiserver's defaults (KMS timeout 3s, apiVersion v1 and, for v1, a
// cache size of 1000) and validates it with kube-apiserver's rules, field
// paths and messages. It also refuses what kube-apiserver only refuses
// later, when it builds the transformers: a resource masked by a wildcard
// of an earlier entry, and KMS v1, which portcullis does not implement.
// Every problem is reported at once as a field.ErrorList aggregate.
//
// # Secrets
//
// The file holds key material. No error this package returns contains a
// secret: validation prints REDACTED in its place (as kube-apiserver does),
// a provider printed in an error has its secrets replaced, and decoding
// errors, which can echo a scalar from the file, are scrubbed. Config's
// String and GoString do not print the resources.
//
// # Matching
//
// Config.Match picks the entry that governs a resource the way
// kube-apiserver does: an exact "resource.group" first, then "*.group"
// ("*." for the core group), then "*.*". Because masking is refused, that
// is always the earliest entry naming the resource. An exact resource may
// be listed by several entries; its providers are then those of every such
// entry in order (Config.MatchAll), the first entry's first provider
// writing.
package config

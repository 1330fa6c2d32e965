// Package encryption is encryption at rest: a storage.Store that encrypts
// values on their way into another store and decrypts them on the way
// back, as an EncryptionConfiguration (--encryption-provider-config)
// says, resource by resource.
//
// The providers live in sub-packages (aes, secretbox, kmsv2, and identity
// in value); config decodes and validates the file; this package builds
// one provider chain per configuration entry, routes each storage key to
// the chain of its resource, swaps the whole set atomically when the file
// is reloaded, and reports the health of the KMS plugins.
package encryption

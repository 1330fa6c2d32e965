package value

import "context"

// Transformer moves one value between its plaintext and its stored form.
// It neither adds nor expects the provider's prefix: the Chain does that.
//
// dataCtx is the value's storage key. Providers that authenticate their
// ciphertext bind it, so that a value copied under another key does not
// decrypt.
type Transformer interface {
	// ToStorage encrypts plaintext.
	ToStorage(ctx context.Context, plaintext, dataCtx []byte) ([]byte, error)
	// FromStorage decrypts stored. stale reports that the value was
	// written with something other than what the transformer writes now
	// (an older KMS key, for example), so that it should be rewritten even
	// when the object did not change.
	FromStorage(ctx context.Context, stored, dataCtx []byte) (plaintext []byte, stale bool, err error)
}

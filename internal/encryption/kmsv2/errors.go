package kmsv2

import "errors"

var (
	// ErrInvalidConfig is a Config that New cannot use.
	ErrInvalidConfig = errors.New("invalid KMS v2 provider configuration")
	// ErrUnhealthy is a Status answer (or the lack of one) that makes the
	// plugin unhealthy. Errors read "kmsv2 provider "name" is not healthy: ...".
	ErrUnhealthy = errors.New("not healthy")
	// ErrNoWriteKey is a write without a usable data encryption key seed:
	// the plugin has not answered yet, or has not for longer than the lease.
	ErrNoWriteKey = errors.New("no usable data encryption key seed for writes")
	// ErrInvalidObject is a stored value that is not a valid EncryptedObject.
	ErrInvalidObject = errors.New("invalid encrypted object")
	// ErrDecryptDEK is the plugin failing to decrypt a DEK source, or
	// returning something that is not a key.
	ErrDecryptDEK = errors.New("failed to decrypt DEK")
	// ErrDecryptData is a value whose ciphertext does not open: it was
	// altered, or was written under another storage key.
	ErrDecryptData = errors.New("failed to decrypt data")
	// ErrNotProbed is LastHealth before the first Status poll.
	ErrNotProbed = errors.New("no status poll yet")
)

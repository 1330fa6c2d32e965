package encryption

import (
	"errors"

	"github.com/portcullis/portcullis/internal/encryption/value"
)

const encryptedPrefix = value.EncryptedPrefix

// errUnconfigured is an encrypted value of a resource the configuration no
// longer encrypts: add its provider back (after identity) to read it.
var errUnconfigured = errors.New("identity transformer tried to read encrypted data")

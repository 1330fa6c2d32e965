package encryption

import (
	"strings"

	"github.com/portcullis/portcullis/internal/encryption/value"
)

// state is one applied configuration: which chain each storage key
// prefix goes through. It is never changed once built; a reload builds
// and swaps in a new one.
type state struct {
	byPrefix map[string]*target
	// kms are the KMS plugins this configuration uses, for health checks.
	kms  []*kmsEntry
	hash string
}

// target is the chain of one resource and its metrics label.
type target struct {
	chain    *value.Chain
	resource string
}

const registryRoot = "/registry/"

// target returns the chain of key's resource, nil when the resource is
// stored in clear text. Keys are /registry/<resource>/... for the core
// group and /registry/<group>/<resource>/... otherwise; no group is named
// like a core resource, so trying one segment, then two, is unambiguous.
func (st *state) target(key string) *target {
	if len(st.byPrefix) == 0 || !strings.HasPrefix(key, registryRoot) {
		return nil
	}
	i := strings.IndexByte(key[len(registryRoot):], '/')
	if i < 0 {
		return nil
	}
	n := len(registryRoot) + i + 1
	if t := st.byPrefix[key[:n]]; t != nil {
		return t
	}
	j := strings.IndexByte(key[n:], '/')
	if j < 0 {
		return nil
	}
	return st.byPrefix[key[:n+j+1]]
}

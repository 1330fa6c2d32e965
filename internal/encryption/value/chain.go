package value

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"
)

// EncryptedPrefix starts every value written by an encrypting provider.
const EncryptedPrefix = "k8s:enc:"

var (
	// ErrNoMatch is a stored value that no provider of the chain reads.
	ErrNoMatch = errors.New("no matching prefix found")
	// ErrIdentityEncrypted is the identity provider refusing a value some
	// encrypting provider wrote.
	ErrIdentityEncrypted = errors.New("identity transformer tried to read encrypted data")
)

// Identity is the identity provider: values are stored as they are.
type Identity struct{}

// ToStorage returns plaintext unchanged.
func (Identity) ToStorage(_ context.Context, plaintext, _ []byte) ([]byte, error) {
	return plaintext, nil
}

// FromStorage returns stored unchanged, unless an encrypting provider wrote it.
func (Identity) FromStorage(_ context.Context, stored, _ []byte) ([]byte, bool, error) {
	if bytes.HasPrefix(stored, []byte(EncryptedPrefix)) {
		return nil, false, ErrIdentityEncrypted
	}
	return stored, false, nil
}

// Provider is one entry of a chain: a transformer and the prefix it writes
// in front of its values ("" for identity).
type Provider struct {
	Prefix      string
	Transformer Transformer
}

// label names the provider in metrics, as kube-apiserver does.
func (p Provider) label() string {
	if p.Prefix == "" {
		return "identity"
	}
	return p.Prefix
}

// Chain is the provider list of one EncryptionConfiguration entry: the
// first provider writes; every provider whose prefix a stored value
// carries is tried for reading it.
type Chain struct {
	providers []Provider
	metrics   *Metrics
}

// NewChain returns the chain of providers, in configuration order. m may be nil.
func NewChain(m *Metrics, providers ...Provider) (*Chain, error) {
	if len(providers) == 0 {
		return nil, errors.New("value: a chain needs at least one provider")
	}
	return &Chain{providers: providers, metrics: m}, nil
}

// ToStorage writes plaintext with the first provider, behind its prefix.
// resource labels the metrics.
func (c *Chain) ToStorage(ctx context.Context, resource string, plaintext, dataCtx []byte) ([]byte, error) {
	start := time.Now()
	p := c.providers[0]
	out, err := p.Transformer.ToStorage(ctx, plaintext, dataCtx)
	c.metrics.record(resource, toStorage, p.label(), start, err)
	if err != nil {
		return nil, fmt.Errorf("encrypting with %q: %w", p.label(), err)
	}
	if p.Prefix == "" {
		return out, nil
	}
	// The providers return fresh slices; prepend the prefix in a new one
	// sized once.
	stored := make([]byte, 0, len(p.Prefix)+len(out))
	stored = append(stored, p.Prefix...)
	return append(stored, out...), nil
}

// FromStorage reads a stored value with the providers whose prefix it
// carries, in order; the first that succeeds wins. The value is stale when
// a provider other than the first read it, or the provider says so. When
// every candidate fails, the error names each and why.
//
// A failure does not stop the search: two entries of the same provider
// type share a prefix while a key is rotated in, and an identity provider
// placed first (to decrypt everything) must step aside for encrypted values.
func (c *Chain) FromStorage(ctx context.Context, resource string, stored, dataCtx []byte) ([]byte, bool, error) {
	start := time.Now()
	var errs []error
	for i, p := range c.providers {
		if !bytes.HasPrefix(stored, []byte(p.Prefix)) {
			continue
		}
		out, stale, err := p.Transformer.FromStorage(ctx, stored[len(p.Prefix):], dataCtx)
		if err != nil && p.Prefix == "" {
			continue
		}
		c.metrics.record(resource, fromStorage, p.label(), start, err)
		if err != nil {
			errs = append(errs, fmt.Errorf("decrypting with %q: %w", p.label(), err))
			continue
		}
		return out, stale || i != 0, nil
	}
	if len(errs) > 0 {
		return nil, false, errors.Join(errs...)
	}
	c.metrics.record(resource, fromStorage, "unknown", start, ErrNoMatch)
	if bytes.HasPrefix(stored, []byte(EncryptedPrefix)) {
		return nil, false, fmt.Errorf("%w for %s", ErrNoMatch, describePrefix(stored))
	}
	return nil, false, ErrNoMatch
}

// describePrefix quotes the provider prefix of an encrypted value
// ("k8s:enc:aesgcm:v1:key1:"), which names the key that wrote it and holds
// nothing secret.
func describePrefix(stored []byte) string {
	// k8s:enc:<type>:<version>:<name>: has five colons.
	n := 0
	for i, b := range stored {
		if i > 256 {
			break
		}
		if b == ':' {
			n++
			if n == 5 {
				return fmt.Sprintf("%q", stored[:i+1])
			}
		}
	}
	return "a value of an unknown provider"
}

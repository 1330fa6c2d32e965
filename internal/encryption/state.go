package encryption

import (
	"fmt"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/encryption/config"
	"github.com/portcullis/portcullis/internal/encryption/value"
)

// state is one applied configuration: which chain each storage key
// prefix goes through. Its built-in part is never changed once built; a
// reload builds and swaps in a new one. Custom resources, which come and
// go with their CRDs, are matched against the configuration the first
// time a key of theirs is seen, and remembered.
type state struct {
	root     string
	byPrefix map[string]*target
	// kms are the KMS plugins this configuration uses, for health checks.
	kms  []*kmsEntry
	hash string

	// cfg, entries and metrics build the chains of custom resources.
	cfg     *config.Config
	entries [][]value.Provider
	metrics *value.Metrics

	mu     sync.Mutex
	chains map[string]*value.Chain
	custom map[string]*target
}

// target is the chain of one resource and its metrics label, or why
// there is none for a resource the configuration names.
type target struct {
	chain    *value.Chain
	resource string
	err      error
}

// target returns the chain of key's resource, nil when the resource is
// stored in clear text. Keys are <root><resource>/... for most built-in
// resources, <root><group>/<resource>/... for custom ones and a few
// built-in ones (services/specs/...); no group is named like a built-in
// resource, so trying one segment, then two, is unambiguous.
func (st *state) target(key string) *target {
	root := st.root
	if (len(st.byPrefix) == 0 && st.cfg == nil) || !strings.HasPrefix(key, root) {
		return nil
	}
	i := strings.IndexByte(key[len(root):], '/')
	if i < 0 {
		return nil
	}
	n := len(root) + i + 1
	if t := st.byPrefix[key[:n]]; t != nil {
		return t
	}
	j := strings.IndexByte(key[n:], '/')
	if j < 0 {
		return nil
	}
	prefix := key[:n+j+1]
	if t := st.byPrefix[prefix]; t != nil {
		return t
	}
	group := key[len(root) : n-1]
	if st.cfg == nil || !strings.Contains(group, ".") {
		// Built-in resources are all in byPrefix; only custom resources
		// (whose groups have a dot) are looked up late.
		return nil
	}
	return st.customTarget(prefix, schema.GroupResource{Group: group, Resource: key[n : n+j]})
}

// customTarget matches a custom resource against the configuration once.
func (st *state) customTarget(prefix string, gr schema.GroupResource) *target {
	st.mu.Lock()
	defer st.mu.Unlock()
	if t, ok := st.custom[prefix]; ok {
		return t
	}
	var t *target
	if idx := st.cfg.MatchAll(gr); len(idx) > 0 {
		chain, err := st.chainFor(idx)
		if err != nil {
			// Configuration validation requires a provider in every entry,
			// so this cannot happen; refusing the key beats clear text.
			return &target{err: fmt.Errorf("encryption of %s: %w", gr, err)}
		}
		t = &target{chain: chain, resource: gr.String()}
	}
	st.custom[prefix] = t
	return t
}

// chainFor returns the chain of the configuration entries idx, shared
// by every resource those entries name.
func (st *state) chainFor(idx []int) (*value.Chain, error) {
	id := fmt.Sprint(idx)
	if c := st.chains[id]; c != nil {
		return c, nil
	}
	var providers []value.Provider
	for _, i := range idx {
		providers = append(providers, st.entries[i]...)
	}
	c, err := value.NewChain(st.metrics, providers...)
	if err != nil {
		return nil, err
	}
	st.chains[id] = c
	return c, nil
}

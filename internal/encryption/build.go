package encryption

import (
	"encoding/base64"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"

	"github.com/portcullis/portcullis/internal/encryption/aes"
	"github.com/portcullis/portcullis/internal/encryption/config"
	"github.com/portcullis/portcullis/internal/encryption/secretbox"
	"github.com/portcullis/portcullis/internal/encryption/value"
)

// build makes the state of cfg. KMS plugins already running under the
// same name, endpoint and timeout are reused (with their DEK caches);
// fresh lists the ones created, not yet started.
func (s *Store) build(cfg *config.Config, running map[string]*kmsEntry) (st *state, fresh []*kmsEntry, err error) {
	defer func() {
		if err != nil {
			for _, e := range fresh {
				e.close()
			}
			fresh = nil
		}
	}()
	used := map[string]*kmsEntry{}
	entries := make([][]value.Provider, len(cfg.Resources))
	for i, rc := range cfg.Resources {
		for j, pc := range rc.Providers {
			ps, err := s.providers(pc, running, used, &fresh)
			if err != nil {
				return nil, fresh, fmt.Errorf("resources[%d].providers[%d]: %w", i, j, err)
			}
			entries[i] = append(entries[i], ps...)
		}
	}
	// A resource named in several entries reads with the providers of all
	// of them, in order; the first entry's first provider writes.
	root := s.opts.Root
	if root == "" {
		root = "/registry/"
	}
	st = &state{root: root, byPrefix: map[string]*target{}, hash: cfg.Hash, cfg: cfg, entries: entries, metrics: s.metrics,
		chains: map[string]*value.Chain{}, custom: map[string]*target{}}
	for _, r := range s.opts.Resources {
		idx := cfg.MatchAll(configResource(r.GroupResource))
		if len(idx) == 0 {
			continue
		}
		chain, err := st.chainFor(idx)
		if err != nil {
			return nil, fresh, err
		}
		st.byPrefix[r.KeyPrefix] = &target{chain: chain, resource: r.GroupResource.String()}
	}
	for _, e := range used {
		st.kms = append(st.kms, e)
	}
	return st, fresh, nil
}

// eventsV1 is stored by kube-apiserver as core events, so the
// configuration governs it as "events" (and refuses "*.events.k8s.io").
var eventsV1 = schema.GroupResource{Group: "events.k8s.io", Resource: "events"}

// configResource is the name under which the configuration governs gr.
func configResource(gr schema.GroupResource) schema.GroupResource {
	if gr == eventsV1 {
		return schema.GroupResource{Resource: "events"}
	}
	return gr
}

// providers returns the chain entries of one provider configuration: one
// per key, in order, for the local ciphers.
func (s *Store) providers(pc apiserverv1.ProviderConfiguration, running, used map[string]*kmsEntry, fresh *[]*kmsEntry) ([]value.Provider, error) {
	switch {
	case pc.AESGCM != nil:
		return keyed("aesgcm", pc.AESGCM.Keys, func(k []byte) (value.Transformer, error) { return aes.NewGCM(k) })
	case pc.AESCBC != nil:
		return keyed("aescbc", pc.AESCBC.Keys, func(k []byte) (value.Transformer, error) { return aes.NewCBC(k) })
	case pc.Secretbox != nil:
		return keyed("secretbox", pc.Secretbox.Keys, func(k []byte) (value.Transformer, error) { return secretbox.New(k) })
	case pc.Identity != nil:
		return []value.Provider{{Transformer: value.Identity{}}}, nil
	case pc.KMS != nil:
		e, err := s.kmsFor(*pc.KMS, running, used, fresh)
		if err != nil {
			return nil, err
		}
		return []value.Provider{{Prefix: e.p.Prefix(), Transformer: e.p}}, nil
	}
	return nil, fmt.Errorf("provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity")
}

// keyed builds one provider per key, with kube-apiserver's prefix
// k8s:enc:<type>:v1:<key name>:.
func keyed(kind string, keys []apiserverv1.Key, newT func([]byte) (value.Transformer, error)) ([]value.Provider, error) {
	out := make([]value.Provider, 0, len(keys))
	for i, k := range keys {
		secret, err := base64.StdEncoding.DecodeString(k.Secret)
		if err != nil {
			// Validation has refused this already; say nothing of the key.
			return nil, fmt.Errorf("%s.keys[%d].secret: secrets must be base64 encoded", kind, i)
		}
		t, err := newT(secret)
		if err != nil {
			return nil, fmt.Errorf("%s.keys[%d]: %w", kind, i, err)
		}
		out = append(out, value.Provider{Prefix: encryptedPrefix + kind + ":v1:" + k.Name + ":", Transformer: t})
	}
	return out, nil
}

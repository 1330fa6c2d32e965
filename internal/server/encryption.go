package server

import (
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/portcullis/portcullis/internal/encryption"
	"github.com/portcullis/portcullis/internal/registry"
	"github.com/portcullis/portcullis/internal/storage"
)

// newEncryption wraps store in encryption at rest when
// --encryption-provider-config is given; it returns nil otherwise.
func newEncryption(cfg Config, reg *registry.Registry, store storage.Store, prom prometheus.Registerer, log *slog.Logger) (*encryption.Store, error) {
	if cfg.EncryptionProviderConfig == "" {
		return nil, nil
	}
	var resources []encryption.Resource
	for _, r := range reg.All() {
		if r.Virtual || r.StoredAs != nil {
			continue
		}
		resources = append(resources, encryption.Resource{KeyPrefix: r.KeyPrefix(), GroupResource: r.GroupResource()})
	}
	return encryption.New(store, encryption.Options{
		ConfigFile:      cfg.EncryptionProviderConfig,
		AutomaticReload: cfg.EncryptionProviderConfigAutomaticReload,
		Resources:       resources,
		Root:            reg.Root(),
		Registerer:      prom,
		APIServerID:     serverID(),
		Logger:          log,
	})
}

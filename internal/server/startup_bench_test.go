package server

import (
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/portcullis/portcullis/internal/authn"
	"github.com/portcullis/portcullis/internal/storage/bbolt"
)

// BenchmarkNewAPI measures assembling the request path on an existing
// data directory: the part of start-up after the store is open. The first
// iteration also pays the once-per-process costs (key generation, schema
// parsing) that Run overlaps; the figure is dominated by the rest.
func BenchmarkNewAPI(b *testing.B) {
	dir := b.TempDir()
	cfg := Default()
	cfg.DataDir = dir
	store, err := bbolt.Open(filepath.Join(dir, "db"), bbolt.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	for b.Loop() {
		app, err := newAPI(apiDeps{store: &backend{Store: store, embedded: true}, certs: certificates{Authenticator: authn.NewX509(nil)}, log: slog.New(slog.DiscardHandler), config: cfg})
		if err != nil {
			b.Fatal(err)
		}
		app.close()
	}
}

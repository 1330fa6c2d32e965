// Package objectstest builds the object layer for tests: the built-in
// registry and scheme over a real bbolt store in a temporary directory,
// checked for consistency and closed when the test ends.
package objectstest

import (
	"path/filepath"
	"testing"

	"github.com/portcullis/portcullis/internal/objects"
	"github.com/portcullis/portcullis/internal/registry"
	"github.com/portcullis/portcullis/internal/storage/bbolt"
)

// New returns the object layer over a new store.
func New(t testing.TB) *objects.Objects {
	t.Helper()
	store, err := bbolt.Open(filepath.Join(t.TempDir(), "db"), bbolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := store.Check(); err != nil {
			t.Errorf("store check: %v", err)
		}
		store.Close()
	})
	scheme, err := registry.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	reg, err := registry.New(registry.DefaultRoot, registry.Builtin())
	if err != nil {
		t.Fatal(err)
	}
	return objects.New(reg, scheme, store)
}

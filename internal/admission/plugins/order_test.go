package plugins

import (
	"testing"

	"github.com/portcullis/portcullis/internal/objects/objectstest"
)

// TestOrderNamesEveryPlugin: a plugin missing from order would never run,
// and a default-on name outside order would be a typo.
func TestOrderNamesEveryPlugin(t *testing.T) {
	ordered := map[string]bool{}
	for _, n := range order {
		if ordered[n] {
			t.Errorf("%s is in order twice", n)
		}
		ordered[n] = true
	}
	for n := range defaultOn {
		if !ordered[n] {
			t.Errorf("default-on %s is not in order", n)
		}
	}
	s := &Set{}
	for n := range s.constructors(Deps{Objects: objectstest.New(t)}) {
		if !ordered[n] {
			t.Errorf("plugin %s is not in order", n)
		}
	}
}

package controllertest

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/defaults"
	"github.com/portcullis/portcullis/internal/objects"
	"github.com/portcullis/portcullis/internal/objects/objectstest"
	"github.com/portcullis/portcullis/internal/rest"
	"github.com/portcullis/portcullis/internal/validation"
)

// Env is a store, its object layer and the REST handler over it.
type Env struct {
	Objects *objects.Objects
	API     *rest.Handler
}

// New builds an Env whose store is checked and closed when the test ends.
func New(t testing.TB) *Env {
	t.Helper()
	objs := objectstest.New(t)
	virtual := map[schema.GroupVersionResource]rest.VirtualFunc{}
	for _, res := range objs.Registry().All() {
		if res.Virtual {
			virtual[res.GVR] = func(context.Context, runtime.Object, bool) (runtime.Object, error) { return nil, nil }
		}
	}
	api, err := rest.New(rest.Config{Objects: objs, Admission: &admission.Chain{}, Default: defaults.Apply,
		ValidateCreate: validation.Create, ValidateUpdate: validation.Update, Virtual: virtual})
	if err != nil {
		t.Fatal(err)
	}
	return &Env{Objects: objs, API: api}
}

// Run runs a controller until the test ends.
func Run(t testing.TB, run func(ctx context.Context)) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
}

// Eventually waits until cond holds, polling; the test fails with what
// cond last reported after a minute, which only a broken controller takes.
func Eventually(t testing.TB, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		ok, why := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("condition not met: %s", why)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

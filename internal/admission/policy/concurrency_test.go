package policy

import (
	"fmt"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/portcullis/portcullis/internal/admission"
)

// TestConcurrentUse validates requests from four readers while a writer
// changes policies. The policies being changed never apply to the
// readers' requests, so every decision is the one of the untouched
// policy: a plain pod admitted, a privileged one denied. Once the writer is
// done, a request the changed policies do apply to is decided as by a
// plugin given the final objects one by one. Run with -race too.
func TestConcurrentUse(t *testing.T) {
	fixed := loadYAML(t, "deny-privileged.yaml")
	p := newPlugin(options(newEnv()), fixed...)
	const denied = `pods "root" is forbidden: ValidatingAdmissionPolicy 'example-deny-privileged' with binding 'example-deny-privileged-binding' denied request: Privileged containers are not allowed`
	root := func() *admission.Attributes {
		return podRequest(admission.Create, pod("default", "root", nil, privileged()), nil)
	}

	// write is the i-th change: policy p<i%5> refuses pods named x.
	write := func(i int) (upsert []runtime.Object, deletePolicy bool) {
		name := fmt.Sprintf("p%d", i%5)
		return []runtime.Object{vap(name, variable("v", "object.metadata.name"), validate("variables.v != 'x'")), vapb(name+"-b", name)}, i%7 == 0
	}
	const writes = 50

	stop := make(chan struct{})
	var readers sync.WaitGroup
	for range 4 {
		readers.Go(func() {
			for {
				if err, _ := run(p, createWeb()); err != nil {
					t.Errorf("plain pod: %v", err)
					return
				}
				if err, _ := run(p, root()); err == nil || err.Error() != denied {
					t.Errorf("privileged pod: %v, want %s", err, denied)
					return
				}
				select {
				case <-stop:
					return
				default:
				}
			}
		})
	}
	for i := range writes {
		objs, del := write(i)
		for _, o := range objs {
			p.Upsert(o)
		}
		if del {
			p.Delete(objs[0])
		}
	}
	close(stop)
	readers.Wait()

	want := newPlugin(options(newEnv()), fixed...)
	for i := range writes {
		objs, del := write(i)
		for _, o := range objs {
			want.Upsert(o)
		}
		if del {
			want.Delete(objs[0])
		}
	}
	x := func() *admission.Attributes { return podRequest(admission.Create, pod("default", "x", nil), nil) }
	got, _ := run(p, x())
	exp, _ := run(want, x())
	if got == nil || exp == nil || got.Error() != exp.Error() {
		t.Errorf("pod x after concurrent use: %v; given the same objects in order: %v", got, exp)
	}
}

package policy

import (
	"fmt"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// TestConcurrentUse validates requests while policies change; run with
// -race.
func TestConcurrentUse(t *testing.T) {
	e := newEnv()
	p := newPlugin(options(e), loadYAML(t, "deny-privileged.yaml")...)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if err, _ := run(p, createWeb()); err != nil && !isDenial(err) {
					t.Error(err)
					return
				}
			}
		}()
	}
	for i := range 50 {
		name := fmt.Sprintf("p%d", i%5)
		p.Upsert(vap(name, variable("v", "object.metadata.name"), validate("variables.v != 'x'")))
		p.Upsert(vapb(name+"-b", name))
		if i%7 == 0 {
			p.Delete(vap(name))
		}
	}
	close(stop)
	wg.Wait()
}

func isDenial(err error) bool { return apierrors.IsInvalid(err) }

package plugins

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/informer"
)

// follow feeds the objects of the given resources to h, and closes ready
// once all of them have been listed (nil: no readiness to report).
func (s *Set) follow(d Deps, h informer.Handler, ready chan struct{}, gvrs ...schema.GroupVersionResource) {
	var synced []<-chan struct{}
	for _, gvr := range gvrs {
		res, _ := d.Objects.Lookup(gvr)
		in := informer.New(d.Objects.Store(), res, d.Objects.Decode, h, d.Log)
		s.runs = append(s.runs, in.Run)
		synced = append(synced, in.Synced())
		s.synced = append(s.synced, synced[len(synced)-1])
	}
	if ready == nil {
		return
	}
	s.runs = append(s.runs, func(ctx context.Context) {
		for _, c := range synced {
			select {
			case <-c:
			case <-ctx.Done():
				return
			}
		}
		close(ready)
	})
}

// Synced reports whether every informer of the chain has listed what it
// follows: the /readyz check informer-sync, so that a replica whose
// policies and webhook configurations are not loaded yet is not sent
// requests.
func (s *Set) Synced() error {
	n := 0
	for _, c := range s.synced {
		select {
		case <-c:
		default:
			n++
		}
	}
	if n > 0 {
		return fmt.Errorf("%d of %d admission informers have not synced", n, len(s.synced))
	}
	return nil
}

package plugins

import (
	"context"

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

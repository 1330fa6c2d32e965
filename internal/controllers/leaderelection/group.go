package leaderelection

import (
	"context"
	"sync"
)

// Group joins controllers into one lead function: each runs in its own
// goroutine with lead's context, and the function returns when all have
// returned, so that no controller outlives the term it ran in.
func Group(runs ...func(ctx context.Context)) func(ctx context.Context) {
	return func(ctx context.Context) {
		var wg sync.WaitGroup
		for _, run := range runs {
			wg.Go(func() { run(ctx) })
		}
		wg.Wait()
	}
}

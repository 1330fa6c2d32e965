package workqueue

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

func TestQueueOrderAndDedup(t *testing.T) {
	q := New()
	for _, k := range []string{"a", "b", "a", "c", "b"} {
		q.Add(k)
	}
	var got []string
	for k, ok := q.Next(); ok; k, ok = q.Next() {
		got = append(got, k)
	}
	if want := []string{"a", "b", "c"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestWorkRetries: a failing key is synced again, with doubling delays,
// until it succeeds; then Work stops with its context.
func TestWorkRetries(t *testing.T) {
	q := New()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var retries []time.Duration
	calls := 0
	synced := make(chan struct{})
	errFail := errors.New("not yet")
	done := make(chan struct{})
	go func() {
		defer close(done)
		q.Work(ctx, func(_ context.Context, key string) error {
			calls++
			if calls < 3 {
				return errFail
			}
			close(synced)
			return nil
		}, func(key string, retry time.Duration, err error) {
			if key != "k" || !errors.Is(err, errFail) {
				t.Errorf("failed(%q, %v)", key, err)
			}
			retries = append(retries, retry)
		})
	}()
	q.Add("k")
	<-synced
	cancel()
	<-done
	if want := []time.Duration{firstRetry, 2 * firstRetry}; !slices.Equal(retries, want) {
		t.Errorf("retry delays %v, want %v", retries, want)
	}
}

package main

import (
	"slices"
	"time"
)

// latencies collects what one client measured in the window; clients
// each own one and they are merged after the window, so nothing locks on
// the hot path.
type latencies struct {
	ok       []time.Duration
	errors   int
	firstErr error
}

func (l *latencies) record(d time.Duration, err error) {
	if err != nil {
		l.errors++
		if l.firstErr == nil {
			l.firstErr = err
		}
		return
	}
	l.ok = append(l.ok, d)
}

func (l *latencies) merge(o *latencies) {
	l.ok = append(l.ok, o.ok...)
	l.errors += o.errors
	if l.firstErr == nil {
		l.firstErr = o.firstErr
	}
}

// percentile is the p-th percentile (0 < p <= 100) of sorted by the
// nearest-rank method; 0 for no samples.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(p/100*float64(len(sorted))+0.5) - 1
	return sorted[min(max(rank, 0), len(sorted)-1)]
}

// median of xs (the mean of the middle two for an even count); 0 for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

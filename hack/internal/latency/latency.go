// Package latency collects request latencies for the load tools
// (hack/load, hack/bench): each client records into its own Samples, so
// nothing locks on the measured path, and they are merged afterwards.
package latency

import "time"

// Samples are the latencies of the requests that succeeded, and the
// failures.
type Samples struct {
	OK       []time.Duration
	Errors   int
	FirstErr error
}

// Record adds one request: its latency, or its error.
func (s *Samples) Record(d time.Duration, err error) {
	if err != nil {
		s.Errors++
		if s.FirstErr == nil {
			s.FirstErr = err
		}
		return
	}
	s.OK = append(s.OK, d)
}

// Merge adds o's requests to s.
func (s *Samples) Merge(o *Samples) {
	s.OK = append(s.OK, o.OK...)
	s.Errors += o.Errors
	if s.FirstErr == nil {
		s.FirstErr = o.FirstErr
	}
}

// Percentile is the p-th percentile (0 < p <= 100) of sorted by the
// nearest-rank method; 0 for no samples.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(p/100*float64(len(sorted))+0.5) - 1
	return sorted[min(max(rank, 0), len(sorted)-1)]
}

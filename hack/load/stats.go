package main

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"
)

// opStats collects the latencies and failures of one operation.
type opStats struct {
	latencies []time.Duration
	errors    int
	firstErr  error
}

func (s *opStats) record(d time.Duration, err error) {
	if err != nil {
		s.errors++
		if s.firstErr == nil {
			s.firstErr = err
		}
		return
	}
	s.latencies = append(s.latencies, d)
}

func (s *opStats) merge(o *opStats) {
	s.latencies = append(s.latencies, o.latencies...)
	s.errors += o.errors
	if s.firstErr == nil {
		s.firstErr = o.firstErr
	}
}

// percentile returns the p-th percentile (0 < p <= 100) of sorted, by the
// nearest-rank method.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(p/100*float64(len(sorted))+0.5) - 1
	return sorted[min(max(rank, 0), len(sorted)-1)]
}

// printStats writes one line per operation, in the given order.
func printStats(w io.Writer, order []string, stats map[string]*opStats, elapsed time.Duration) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "op\tok\terrors\tops/s\tp50\tp90\tp99\tmax\t")
	for _, op := range order {
		s := stats[op]
		if s == nil {
			continue
		}
		slices.Sort(s.latencies)
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.0f\t%s\t%s\t%s\t%s\t\n", op, len(s.latencies), s.errors,
			float64(len(s.latencies))/elapsed.Seconds(),
			ms(percentile(s.latencies, 50)), ms(percentile(s.latencies, 90)),
			ms(percentile(s.latencies, 99)), ms(percentile(s.latencies, 100)))
	}
	_ = tw.Flush()
	for _, op := range order {
		if s := stats[op]; s != nil && s.firstErr != nil {
			fmt.Fprintf(w, "first %s error: %v\n", op, s.firstErr)
		}
	}
}

// ms formats a duration in milliseconds with a precision that suits it.
func ms(d time.Duration) string {
	return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
}

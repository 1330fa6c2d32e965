package main

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/portcullis/portcullis/hack/internal/latency"
)

// printStats writes one line per operation, in the given order.
func printStats(w io.Writer, order []string, stats map[string]*latency.Samples, elapsed time.Duration) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "op\tok\terrors\tops/s\tp50\tp90\tp99\tmax\t")
	for _, op := range order {
		s := stats[op]
		if s == nil {
			continue
		}
		slices.Sort(s.OK)
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.0f\t%s\t%s\t%s\t%s\t\n", op, len(s.OK), s.Errors,
			float64(len(s.OK))/elapsed.Seconds(),
			ms(latency.Percentile(s.OK, 50)), ms(latency.Percentile(s.OK, 90)),
			ms(latency.Percentile(s.OK, 99)), ms(latency.Percentile(s.OK, 100)))
	}
	_ = tw.Flush()
	for _, op := range order {
		if s := stats[op]; s != nil && s.FirstErr != nil {
			fmt.Fprintf(w, "first %s error: %v\n", op, s.FirstErr)
		}
	}
}

// ms formats a duration in milliseconds with a precision that suits it.
func ms(d time.Duration) string {
	return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
}

package main

import (
	"errors"
	"testing"
	"time"

	"github.com/portcullis/portcullis/hack/internal/latency"
)

func TestPercentile(t *testing.T) {
	ms := func(n ...int) []time.Duration {
		out := make([]time.Duration, len(n))
		for i, x := range n {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = i + 1
	}
	for _, tc := range []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{name: "empty", sorted: nil, p: 50, want: 0},
		{name: "one", sorted: ms(7), p: 99, want: 7 * time.Millisecond},
		{name: "p50 of 100", sorted: ms(hundred...), p: 50, want: 50 * time.Millisecond},
		{name: "p99 of 100", sorted: ms(hundred...), p: 99, want: 99 * time.Millisecond},
		{name: "max", sorted: ms(1, 2, 3), p: 100, want: 3 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := latency.Percentile(tc.sorted, tc.p); got != tc.want {
				t.Errorf("latency.Percentile(%v) = %v, want %v", tc.p, got, tc.want)
			}
		})
	}
}

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		name string
		xs   []float64
		want float64
	}{
		{name: "none", xs: nil, want: 0},
		{name: "odd", xs: []float64{3, 1, 2}, want: 2},
		{name: "even", xs: []float64{4, 1, 3, 2}, want: 2.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := append([]float64(nil), tc.xs...)
			if got := median(tc.xs); got != tc.want {
				t.Errorf("median(%v) = %v, want %v", tc.xs, got, tc.want)
			}
			for i := range in {
				if in[i] != tc.xs[i] {
					t.Fatalf("median reordered its argument: %v", tc.xs)
				}
			}
		})
	}
}

func TestLatenciesMerge(t *testing.T) {
	var a, b latencies
	a.Record(time.Millisecond, nil)
	first := errors.New("first")
	b.Record(0, first)
	b.Record(0, errors.New("second"))
	b.Record(2*time.Millisecond, nil)
	a.Merge(&b)
	if len(a.OK) != 2 || a.Errors != 2 || a.FirstErr != first {
		t.Errorf("merged = %d ok, %d errors, first %v; want 2, 2, first", len(a.OK), a.Errors, a.FirstErr)
	}
}

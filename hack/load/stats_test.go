package main

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/portcullis/portcullis/hack/internal/latency"
)

func TestPercentile(t *testing.T) {
	var sorted []time.Duration
	for i := 1; i <= 100; i++ {
		sorted = append(sorted, time.Duration(i)*time.Millisecond)
	}
	tests := []struct {
		p    float64
		want time.Duration
	}{
		{50, 50 * time.Millisecond},
		{90, 90 * time.Millisecond},
		{99, 99 * time.Millisecond},
		{100, 100 * time.Millisecond},
		{0.1, 1 * time.Millisecond},
	}
	for _, tt := range tests {
		if got := latency.Percentile(sorted, tt.p); got != tt.want {
			t.Errorf("p%v = %v, want %v", tt.p, got, tt.want)
		}
	}
	if got := latency.Percentile(nil, 50); got != 0 {
		t.Errorf("p50 of nothing = %v", got)
	}
	if got := latency.Percentile([]time.Duration{7}, 99); got != 7 {
		t.Errorf("p99 of one = %v", got)
	}
}

func TestPrintStats(t *testing.T) {
	s := &latency.Samples{}
	for i := 1; i <= 10; i++ {
		s.Record(time.Duration(i)*time.Millisecond, nil)
	}
	s.Record(0, errors.New("boom"))
	var b strings.Builder
	printStats(&b, []string{"get", "list"}, map[string]*latency.Samples{"get": s}, 2*time.Second)
	out := b.String()
	for _, want := range []string{"ops/s", "get", "10", "5", "5.00ms", "10.00ms", "first get error: boom"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "list") {
		t.Errorf("output has a line for an op that did not run:\n%s", out)
	}
}

package latency

import (
	"errors"
	"testing"
	"time"
)

func TestSamples(t *testing.T) {
	var a, b Samples
	a.Record(time.Millisecond, nil)
	first := errors.New("first")
	b.Record(0, first)
	b.Record(0, errors.New("second"))
	b.Record(3*time.Millisecond, nil)
	a.Merge(&b)
	if len(a.OK) != 2 || a.Errors != 2 || a.FirstErr != first {
		t.Errorf("merged = %d ok, %d errors, first %v", len(a.OK), a.Errors, a.FirstErr)
	}
	sorted := []time.Duration{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for p, want := range map[float64]time.Duration{50: 5, 90: 9, 99: 10, 100: 10, 1: 1} {
		if got := Percentile(sorted, p); got != want {
			t.Errorf("Percentile(%v) = %v, want %v", p, got, want)
		}
	}
	if Percentile(nil, 50) != 0 {
		t.Error("Percentile of nothing is not 0")
	}
}

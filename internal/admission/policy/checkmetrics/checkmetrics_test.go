package checkmetrics

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/portcullis/portcullis/internal/admission/policy/celenv"
)

func TestErrorType(t *testing.T) {
	for msg, want := range map[string]string{
		"compilation failed: ERROR":             ErrorTypeCompile,
		"compilation error: compilation failed": ErrorTypeCompile,
		celenv.ErrOutOfBudgetDetail:             ErrorTypeOutOfBudget,
		"expression 'x' resulted":               ErrorTypeInvalid,
		"failed expression: false":              ErrorTypeInvalid,
	} {
		t.Run(msg, func(t *testing.T) {
			if got := ErrorType(msg); got != want {
				t.Errorf("%s, want %s", got, want)
			}
		})
	}
}

func TestShared(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	checks, latency := Opts{Name: "test_check_total", Help: "Checks."}, Opts{Name: "test_check_duration_seconds", Help: "Latency."}
	a := New(reg, checks, latency, "policy", "error_type")
	b := New(reg, checks, latency, "policy", "error_type")
	a.Observe(time.Millisecond, "p", ErrorTypeNone)
	b.Observe(time.Millisecond, "p", ErrorTypeNone)
	const want = `
# HELP test_check_total Checks.
# TYPE test_check_total counter
test_check_total{error_type="no_error",policy="p"} 2
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "test_check_total"); err != nil {
		t.Fatal(err)
	}
	if n := testutil.CollectAndCount(a.Latency); n != 1 {
		t.Errorf("%d latency series", n)
	}
	// Without a registry the metrics still count.
	New(nil, checks, latency, "policy").Observe(0, "p")
}

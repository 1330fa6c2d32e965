package mutating

import (
	"fmt"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/policy/celenv"
	"github.com/portcullis/portcullis/internal/admission/policy/checkmetrics"
)

func TestMetrics(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	opts := options(newEnv())
	opts.Metrics = reg
	p := newPlugin(t, opts,
		podPolicy("ok", applyConfig(`Object{metadata: Object.metadata{labels: {"a": "b"}}}`)),
		podPolicy("compile", "  failurePolicy: Ignore\n"+applyConfig(`Object{metadata: nope}`)),
		podPolicy("invalid", "  failurePolicy: Ignore\n"+applyConfig(`Object{metadata: Object.metadata{labels: {"a": object.nope}}}`)),
	)
	// A second plugin (the manifest-based one) shares the metrics.
	if _, err := New(opts); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err, _ := admit(p, podRequest(admission.Create, pod("default", "web", nil), nil)); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]string{"ok": checkmetrics.ErrorTypeNone, "compile": checkmetrics.ErrorTypeCompile, "invalid": checkmetrics.ErrorTypeInvalid}
	for policy, et := range want {
		if got := testutil.ToFloat64(p.metrics.Checks.WithLabelValues(policy, policy+"-binding", et)); got != 2 {
			t.Errorf("%s: check_total{error_type=%q} = %v, want 2", policy, et, got)
		}
	}
	n, err := testutil.GatherAndCount(reg, "apiserver_mutating_admission_policy_check_total", "apiserver_mutating_admission_policy_check_duration_seconds")
	if err != nil || n != 6 {
		t.Errorf("gathered %d series, %v", n, err)
	}
}

func TestErrorType(t *testing.T) {
	for msg, want := range map[string]string{
		"compilation failed: ERROR": checkmetrics.ErrorTypeCompile,
		celenv.ErrOutOfBudgetDetail: checkmetrics.ErrorTypeOutOfBudget,
		"expression 'x' resulted":   checkmetrics.ErrorTypeInvalid,
	} {
		if got := errorType(fmt.Errorf("%s", msg)); got != want {
			t.Errorf("%q: %s, want %s", msg, got, want)
		}
	}
	if errorType(nil) != checkmetrics.ErrorTypeNone {
		t.Error("nil")
	}
}

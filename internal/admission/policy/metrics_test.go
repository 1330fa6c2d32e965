package policy

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

func TestMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	opts := options(newEnv())
	opts.Metrics = reg
	warn, audit := admissionregistrationv1.Warn, admissionregistrationv1.Audit
	p := newPlugin(opts,
		vap("denies", validate("true"), validate("false")), vapb("denies-b", "denies"),
		vap("warns", validate("false")), vapb("warns-b", "warns", actions(warn, audit)),
		vap("ignored", failurePolicy(admissionregistrationv1.Ignore), validate("object.nope == 1")), vapb("ignored-b", "ignored"),
		vap("broken", validate("nope")), vapb("broken-b", "broken", actions(warn)),
		budgetPolicy("budget"), vapb("budget-b", "budget", actions(warn)),
		vap("passes", validate("true")), vapb("passes-b", "passes"),
		// A second plugin on the same registry shares the metrics.
	)
	New(opts)
	run(p, createWeb())
	const want = `
# HELP apiserver_validating_admission_policy_check_total [BETA] Validation admission policy check total, labeled by policy and further identified by binding and enforcement action taken.
# TYPE apiserver_validating_admission_policy_check_total counter
apiserver_validating_admission_policy_check_total{enforcement_action="allow",error_type="invalid_error",policy="ignored",policy_binding="ignored-b"} 1
apiserver_validating_admission_policy_check_total{enforcement_action="audit",error_type="invalid_error",policy="warns",policy_binding="warns-b"} 1
apiserver_validating_admission_policy_check_total{enforcement_action="deny",error_type="invalid_error",policy="denies",policy_binding="denies-b"} 1
apiserver_validating_admission_policy_check_total{enforcement_action="warn",error_type="compile_error",policy="broken",policy_binding="broken-b"} 1
apiserver_validating_admission_policy_check_total{enforcement_action="warn",error_type="invalid_error",policy="warns",policy_binding="warns-b"} 1
apiserver_validating_admission_policy_check_total{enforcement_action="warn",error_type="out_of_budget",policy="budget",policy_binding="budget-b"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "apiserver_validating_admission_policy_check_total"); err != nil {
		t.Fatal(err)
	}
	if n, err := testutil.GatherAndCount(reg, "apiserver_validating_admission_policy_check_duration_seconds"); err != nil || n != 6 {
		t.Fatalf("%d duration series, %v", n, err)
	}
}

// budgetPolicy has validations that together exceed the runtime cost
// budget, each within the per-call limit and cheap to run: string
// searches are charged by the product of the lengths.
func budgetPolicy(name string) *admissionregistrationv1.ValidatingAdmissionPolicy {
	hundred := "[" + strings.TrimSuffix(strings.Repeat("0,", 100), ",") + "]"
	opts := []policyOpt{
		variable("s", hundred+".map(i, '"+strings.Repeat("a", 100)+"').join()"),
		variable("t", "variables.s.substring(0, 5000) + 'b'"),
	}
	for range 25 {
		opts = append(opts, validate("!variables.s.contains(variables.t)"))
	}
	return vap(name, opts...)
}

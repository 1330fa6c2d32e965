package podsecurity

import (
	"context"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/portcullis/portcullis/internal/admission"
)

func TestMetrics(t *testing.T) {
	e := &env{namespaces: map[string]*corev1.Namespace{
		"open":   namespace("open", nil),
		"base":   namespace("base", map[string]string{"pod-security.kubernetes.io/enforce": "baseline", "pod-security.kubernetes.io/enforce-version": "v1.30", "pod-security.kubernetes.io/warn": "restricted"}),
		"future": namespace("future", map[string]string{"pod-security.kubernetes.io/audit": "restricted", "pod-security.kubernetes.io/audit-version": "v1.40"}),
		"bad":    namespace("bad", map[string]string{"pod-security.kubernetes.io/enforce": "strict"}),
	}}
	reg := prometheus.NewPedanticRegistry()
	p, err := New([]byte(exemptConfig), Deps{
		Namespaces: func(_ context.Context, name string) (*corev1.Namespace, error) {
			if ns, ok := e.namespaces[name]; ok {
				return ns, nil
			}
			return nil, apierrors.NewNotFound(corev1.Resource("namespaces"), name)
		},
		Pods:    func(context.Context, string) ([]*corev1.Pod, error) { return nil, nil },
		Metrics: reg,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []*admission.Attributes{
		podAttrs(admission.Create, pod("open", "p", privilegedSpec()), nil),                                                                                       // allow privileged
		podAttrs(admission.Create, pod("base", "p", privilegedSpec()), nil),                                                                                       // deny baseline v1.30
		podAttrs(admission.Create, pod("base", "p", baselineSpec()), nil),                                                                                         // allow baseline, deny warn restricted
		podAttrs(admission.Create, pod("future", "p", baselineSpec()), nil),                                                                                       // allow privileged, deny audit future
		podAttrs(admission.Create, pod("bad", "p", restrictedSpec()), nil),                                                                                        // non-fatal error, allow restricted
		podAttrs(admission.Create, pod("gone", "p", baselineSpec()), nil),                                                                                         // fatal error
		podAttrs(admission.Create, pod("kube-system", "p", privilegedSpec()), nil),                                                                                // exempt
		attrs(deploymentsGVR, "Deployment", admission.Update, deployment("kube-system", "d", privilegedSpec()), deployment("kube-system", "d", privilegedSpec())), // exempt
	} {
		_ = p.Validate(context.Background(), a)
	}
	const want = `
# HELP pod_security_errors_total [ALPHA] Number of errors preventing normal evaluation. Non-fatal errors may result in the latest restricted profile being used for evaluation.
# TYPE pod_security_errors_total counter
pod_security_errors_total{fatal="false",request_operation="create",resource="pod",subresource=""} 1
pod_security_errors_total{fatal="true",request_operation="create",resource="pod",subresource=""} 1
# HELP pod_security_evaluations_total [ALPHA] Number of policy evaluations that occurred, not counting ignored or exempt requests.
# TYPE pod_security_evaluations_total counter
pod_security_evaluations_total{decision="allow",mode="enforce",policy_level="baseline",policy_version="v1.30",request_operation="create",resource="pod",subresource=""} 1
pod_security_evaluations_total{decision="allow",mode="enforce",policy_level="privileged",policy_version="latest",request_operation="create",resource="pod",subresource=""} 2
pod_security_evaluations_total{decision="allow",mode="enforce",policy_level="privileged",policy_version="latest",request_operation="update",resource="pod",subresource=""} 0
pod_security_evaluations_total{decision="allow",mode="enforce",policy_level="restricted",policy_version="latest",request_operation="create",resource="pod",subresource=""} 1
pod_security_evaluations_total{decision="deny",mode="audit",policy_level="restricted",policy_version="future",request_operation="create",resource="pod",subresource=""} 1
pod_security_evaluations_total{decision="deny",mode="enforce",policy_level="baseline",policy_version="v1.30",request_operation="create",resource="pod",subresource=""} 1
pod_security_evaluations_total{decision="deny",mode="warn",policy_level="restricted",policy_version="latest",request_operation="create",resource="pod",subresource=""} 1
# HELP pod_security_exemptions_total [ALPHA] Number of exempt requests, not counting ignored or out of scope requests.
# TYPE pod_security_exemptions_total counter
pod_security_exemptions_total{request_operation="create",resource="controller",subresource=""} 0
pod_security_exemptions_total{request_operation="create",resource="pod",subresource=""} 1
pod_security_exemptions_total{request_operation="update",resource="controller",subresource=""} 1
pod_security_exemptions_total{request_operation="update",resource="pod",subresource=""} 0
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want)); err != nil {
		t.Error(err)
	}

	// A second plugin on the same registry (a rebuilt chain) counts on.
	if _, err := New(nil, Deps{Namespaces: p.namespaces, Pods: p.pods, Metrics: reg}); err != nil {
		t.Errorf("second New on one registry: %v", err)
	}
}

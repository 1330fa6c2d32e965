package podsecurity

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/portcullis/portcullis/internal/admission"
)

const restrictedViolations = `allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), ` +
	`unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), ` +
	`runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), ` +
	`seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`

// noDropAll is restricted but for the capabilities, a check that exists
// only from v1.22.
func noDropAll() corev1.PodSpec {
	s := restrictedSpec()
	s.Containers[0].SecurityContext.Capabilities = nil
	return s
}

// hostProbe is baseline but for a probe's host, a check that exists only
// from v1.34.
func hostProbe() corev1.PodSpec {
	s := baselineSpec()
	s.Containers[0].LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{
		HTTPGet: &corev1.HTTPGetAction{Host: "10.0.0.1", Port: intstr.FromInt32(80)}}}
	return s
}

func TestPodLevelsAndVersions(t *testing.T) {
	for _, tc := range []struct {
		name   string
		labels map[string]string
		spec   corev1.PodSpec
		want   outcome
	}{{
		name: "no labels: privileged by default",
		spec: privilegedSpec(),
		want: outcome{Annotations: map[string]string{"pod-security.kubernetes.io/enforce-policy": "privileged:latest"}},
	}, {
		name:   "privileged admits a privileged pod",
		labels: levels("privileged", "", ""),
		spec:   privilegedSpec(),
		want:   outcome{Annotations: map[string]string{"pod-security.kubernetes.io/enforce-policy": "privileged:latest"}},
	}, {
		name:   "baseline refuses a privileged pod",
		labels: levels("baseline", "", ""),
		spec:   privilegedSpec(),
		want: outcome{Code: 403,
			Message:     `pods "p" is forbidden: violates PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)`,
			Annotations: map[string]string{"pod-security.kubernetes.io/enforce-policy": "baseline:latest"}},
	}, {
		name:   "baseline admits a baseline pod",
		labels: levels("baseline", "", ""),
		spec:   baselineSpec(),
		want:   outcome{Annotations: map[string]string{"pod-security.kubernetes.io/enforce-policy": "baseline:latest"}},
	}, {
		name:   "restricted refuses a baseline pod",
		labels: levels("restricted", "", ""),
		spec:   baselineSpec(),
		want: outcome{Code: 403,
			Message:     `pods "p" is forbidden: violates PodSecurity "restricted:latest": ` + restrictedViolations,
			Annotations: map[string]string{"pod-security.kubernetes.io/enforce-policy": "restricted:latest"}},
	}, {
		name:   "restricted admits a restricted pod",
		labels: levels("restricted", "", ""),
		spec:   restrictedSpec(),
		want:   outcome{Annotations: map[string]string{"pod-security.kubernetes.io/enforce-policy": "restricted:latest"}},
	}, {
		name:   "restricted:v1.21 predates the capabilities check",
		labels: map[string]string{"pod-security.kubernetes.io/enforce": "restricted", "pod-security.kubernetes.io/enforce-version": "v1.21"},
		spec:   noDropAll(),
		want:   outcome{Annotations: map[string]string{"pod-security.kubernetes.io/enforce-policy": "restricted:v1.21"}},
	}, {
		name:   "restricted:v1.22 has it",
		labels: map[string]string{"pod-security.kubernetes.io/enforce": "restricted", "pod-security.kubernetes.io/enforce-version": "v1.22"},
		spec:   noDropAll(),
		want: outcome{Code: 403,
			Message:     `pods "p" is forbidden: violates PodSecurity "restricted:v1.22": unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"])`,
			Annotations: map[string]string{"pod-security.kubernetes.io/enforce-policy": "restricted:v1.22"}},
	}, {
		name:   "baseline:v1.33 predates the probe host check",
		labels: map[string]string{"pod-security.kubernetes.io/enforce": "baseline", "pod-security.kubernetes.io/enforce-version": "v1.33"},
		spec:   hostProbe(),
		want:   outcome{Annotations: map[string]string{"pod-security.kubernetes.io/enforce-policy": "baseline:v1.33"}},
	}, {
		name:   "baseline:latest has it",
		labels: levels("baseline", "", ""),
		spec:   hostProbe(),
		want: outcome{Code: 403,
			Message:     `pods "p" is forbidden: violates PodSecurity "baseline:latest": probe or lifecycle host (container "c" uses probe or lifecycle host "10.0.0.1")`,
			Annotations: map[string]string{"pod-security.kubernetes.io/enforce-policy": "baseline:latest"}},
	}, {
		name:   "a version past the served one is checked as latest",
		labels: map[string]string{"pod-security.kubernetes.io/enforce": "baseline", "pod-security.kubernetes.io/enforce-version": "v1.99"},
		spec:   hostProbe(),
		want: outcome{Code: 403,
			Message:     `pods "p" is forbidden: violates PodSecurity "baseline:v1.99": probe or lifecycle host (container "c" uses probe or lifecycle host "10.0.0.1")`,
			Annotations: map[string]string{"pod-security.kubernetes.io/enforce-policy": "baseline:v1.99"}},
	}, {
		name:   "enforce defaults warn to its level",
		labels: map[string]string{"pod-security.kubernetes.io/enforce": "baseline", "pod-security.kubernetes.io/audit": "restricted"},
		spec:   baselineSpec(),
		want: outcome{Annotations: map[string]string{
			"pod-security.kubernetes.io/enforce-policy":   "baseline:latest",
			"pod-security.kubernetes.io/audit-violations": `would violate PodSecurity "restricted:latest": ` + restrictedViolations,
		}},
	}, {
		name:   "audit and warn on an admitted pod",
		labels: levels("baseline", "restricted", "restricted"),
		spec:   baselineSpec(),
		want: outcome{
			Warnings: []string{`would violate PodSecurity "restricted:latest": ` + restrictedViolations},
			Annotations: map[string]string{
				"pod-security.kubernetes.io/enforce-policy":   "baseline:latest",
				"pod-security.kubernetes.io/audit-violations": `would violate PodSecurity "restricted:latest": ` + restrictedViolations,
			}},
	}, {
		name:   "no warning on a refused pod, but the audit annotation",
		labels: levels("baseline", "baseline", "baseline"),
		spec:   privilegedSpec(),
		want: outcome{Code: 403,
			Message: `pods "p" is forbidden: violates PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)`,
			Annotations: map[string]string{
				"pod-security.kubernetes.io/enforce-policy":   "baseline:latest",
				"pod-security.kubernetes.io/audit-violations": `would violate PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)`,
			}},
	}, {
		name:   "invalid labels: enforce falls back to restricted, audit and warn to privileged",
		labels: map[string]string{"pod-security.kubernetes.io/enforce": "strict", "pod-security.kubernetes.io/warn": "loud"},
		spec:   baselineSpec(),
		want: outcome{Code: 403,
			Message: `pods "p" is forbidden: violates PodSecurity "restricted:latest": ` + restrictedViolations,
			Annotations: map[string]string{
				"pod-security.kubernetes.io/enforce-policy": "restricted:latest",
				"pod-security.kubernetes.io/error": `Failed to parse policy: [metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted, ` +
					`metadata.labels[pod-security.kubernetes.io/warn]: Invalid value: "loud": must be one of privileged, baseline, restricted]`,
			}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			e := &env{namespaces: map[string]*corev1.Namespace{"ns": namespace("ns", tc.labels)}}
			got, err := run(context.Background(), e.plugin(t, ""), podAttrs(admission.Create, pod("ns", "p", tc.spec), nil))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("outcome (-want +got):\n%s", diff)
			}
		})
	}
}

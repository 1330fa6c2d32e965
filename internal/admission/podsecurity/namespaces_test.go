package podsecurity

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/portcullis/portcullis/internal/admission"
)

func nsAttrs(op admission.Operation, ns, old *corev1.Namespace) *admission.Attributes {
	if old == nil {
		return attrs(namespacesGVR, "Namespace", op, ns, nil)
	}
	return attrs(namespacesGVR, "Namespace", op, ns, old)
}

func owned(p *corev1.Pod, uid types.UID) *corev1.Pod {
	p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: string(uid), UID: uid, Controller: ptr(true)}}
	return p
}

const baselineReasons = "allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile"

func TestNamespaceLabelChanges(t *testing.T) {
	baseline := namespace("ns", levels("baseline", "", ""))
	restricted := namespace("ns", levels("restricted", "", ""))
	kata := baselineSpec()
	kata.RuntimeClassName = ptr("kata")
	mixed := []*corev1.Pod{
		pod("ns", "ok", restrictedSpec()),
		pod("ns", "p3", baselineSpec()),
		pod("ns", "p2", baselineSpec()),
		pod("ns", "p4", baselineSpec()),
		pod("ns", "priv", privilegedSpec()),
		pod("ns", "exempt", kata),
	}
	for _, tc := range []struct {
		name       string
		a          *admission.Attributes
		pods       []*corev1.Pod
		podsErr    error
		maxPods    int
		cancelList bool
		want       outcome
		wantListed bool
	}{{
		name:       "stricter enforce: existing pods checked, grouped by violation",
		a:          nsAttrs(admission.Update, restricted, baseline),
		pods:       mixed,
		wantListed: true,
		want: outcome{Warnings: []string{
			`existing pods in namespace "ns" violate the new PodSecurity enforce level "restricted:latest"`,
			"p2 (and 2 other pods): " + baselineReasons,
			"priv: privileged, " + baselineReasons,
		}},
	}, {
		name:       "conforming pods: no warning",
		a:          nsAttrs(admission.Update, restricted, baseline),
		pods:       []*corev1.Pod{pod("ns", "ok", restrictedSpec())},
		wantListed: true,
	}, {
		name: "relaxed at the same version: pods not looked at",
		a:    nsAttrs(admission.Update, baseline, restricted),
		pods: mixed,
	}, {
		name: "to privileged: pods not looked at",
		a:    nsAttrs(admission.Update, namespace("ns", levels("privileged", "", "")), restricted),
		pods: mixed,
	}, {
		name: "enforce unchanged, warn changed: pods not looked at",
		a:    nsAttrs(admission.Update, namespace("ns", levels("baseline", "", "restricted")), baseline),
		pods: mixed,
	}, {
		name: "same level, another version: checked",
		a: nsAttrs(admission.Update,
			namespace("ns", map[string]string{"pod-security.kubernetes.io/enforce": "baseline", "pod-security.kubernetes.io/enforce-version": "v1.33"}), baseline),
		pods:       []*corev1.Pod{pod("ns", "priv", privilegedSpec())},
		wantListed: true,
		want: outcome{Warnings: []string{
			`existing pods in namespace "ns" violate the new PodSecurity enforce level "baseline:v1.33"`,
			"priv: privileged",
		}},
	}, {
		name:       "pod limit: one pod per controller first",
		a:          nsAttrs(admission.Update, restricted, baseline),
		pods:       []*corev1.Pod{owned(pod("ns", "a1", baselineSpec()), "a"), owned(pod("ns", "a2", baselineSpec()), "a"), pod("ns", "priv", privilegedSpec())},
		maxPods:    2,
		wantListed: true,
		want: outcome{Warnings: []string{
			"new PodSecurity enforce level only checked against the first 2 of 3 existing pods",
			`existing pods in namespace "ns" violate the new PodSecurity enforce level "restricted:latest"`,
			"a1: " + baselineReasons,
			"priv: privileged, " + baselineReasons,
		}},
	}, {
		name:       "time budget used up: at least one pod checked",
		a:          nsAttrs(admission.Update, restricted, baseline),
		pods:       []*corev1.Pod{pod("ns", "p1", baselineSpec()), pod("ns", "p2", baselineSpec()), pod("ns", "p3", baselineSpec())},
		cancelList: true,
		wantListed: true,
		want: outcome{Warnings: []string{
			"new PodSecurity enforce level only checked against the first 1 of 3 existing pods",
			`existing pods in namespace "ns" violate the new PodSecurity enforce level "restricted:latest"`,
			"p1: " + baselineReasons,
		}},
	}, {
		name:       "list failure",
		a:          nsAttrs(admission.Update, restricted, baseline),
		podsErr:    errors.New("boom"),
		wantListed: true,
		want:       outcome{Warnings: []string{"failed to list pods while checking new PodSecurity enforce level"}},
	}, {
		name: "invalid label on create",
		a:    nsAttrs(admission.Create, namespace("ns", levels("strict", "", "")), nil),
		want: outcome{Code: 422,
			Message: `Namespace "ns" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted`},
	}, {
		name: "invalid version on update",
		a:    nsAttrs(admission.Update, namespace("ns", map[string]string{"pod-security.kubernetes.io/warn-version": "1.25"}), baseline),
		want: outcome{Code: 422,
			Message: `Namespace "ns" is invalid: metadata.labels[pod-security.kubernetes.io/warn-version]: Invalid value: "1.25": must be "latest" or "v1.x"`},
	}, {
		name: "an invalid label already there may stay",
		a: nsAttrs(admission.Update,
			namespace("ns", map[string]string{"pod-security.kubernetes.io/audit": "loud", "team": "b"}),
			namespace("ns", map[string]string{"pod-security.kubernetes.io/audit": "loud", "team": "a"})),
	}, {
		name: "an invalid label may not change to another invalid value",
		a: nsAttrs(admission.Update,
			namespace("ns", map[string]string{"pod-security.kubernetes.io/audit": "louder"}),
			namespace("ns", map[string]string{"pod-security.kubernetes.io/audit": "loud"})),
		want: outcome{Code: 422,
			Message: `Namespace "ns" is invalid: metadata.labels[pod-security.kubernetes.io/audit]: Invalid value: "louder": must be one of privileged, baseline, restricted`},
	}, {
		name: "exempt namespace labelled on create",
		a:    nsAttrs(admission.Create, namespace("kube-system", map[string]string{"pod-security.kubernetes.io/enforce": "restricted", "pod-security.kubernetes.io/warn-version": "v1.30"}), nil),
		want: outcome{Warnings: []string{`namespace "kube-system" is exempt from Pod Security, and the policy (enforce=restricted:latest, warn=restricted:v1.30) will be ignored`}},
	}, {
		name: "exempt namespace made stricter: pods not looked at",
		a:    nsAttrs(admission.Update, namespace("kube-system", levels("baseline", "restricted", "")), namespace("kube-system", nil)),
		pods: mixed,
		want: outcome{Warnings: []string{`namespace "kube-system" is exempt from Pod Security, and the policy (enforce=baseline:latest, audit=restricted:latest) will be ignored`}},
	}, {
		name: "exempt namespace, privileged labels: no warning",
		a:    nsAttrs(admission.Create, namespace("kube-system", levels("privileged", "", "")), nil),
	}, {
		name: "status subresource not looked at",
		a: func() *admission.Attributes {
			a := nsAttrs(admission.Update, namespace("ns", levels("strict", "", "")), baseline)
			a.Subresource = "status"
			return a
		}(),
	}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			listed := false
			e := &env{pods: map[string][]*corev1.Pod{"ns": tc.pods, "kube-system": tc.pods}, podsErr: tc.podsErr, onList: func() {
				listed = true
				if tc.cancelList {
					cancel()
				}
			}}
			p := e.plugin(t, exemptConfig)
			if tc.maxPods != 0 {
				p.maxPods = tc.maxPods
			}
			got, err := run(ctx, p, tc.a)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("outcome (-want +got):\n%s", diff)
			}
			if listed != tc.wantListed {
				t.Errorf("pods listed = %v, want %v", listed, tc.wantListed)
			}
		})
	}
}

// TestStatuses: the refusals are kube-apiserver's statuses in full.
func TestStatuses(t *testing.T) {
	e := &env{namespaces: map[string]*corev1.Namespace{"ns": namespace("ns", levels("baseline", "", ""))}}
	p := e.plugin(t, "")
	for _, tc := range []struct {
		name string
		a    *admission.Attributes
		want metav1.Status
	}{{
		name: "forbidden pod",
		a:    podAttrs(admission.Create, pod("ns", "p", privilegedSpec()), nil),
		want: metav1.Status{Status: metav1.StatusFailure, Code: 403, Reason: metav1.StatusReasonForbidden,
			Message: `pods "p" is forbidden: violates PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)`,
			Details: &metav1.StatusDetails{Name: "p", Kind: "pods"}},
	}, {
		name: "invalid namespace",
		a:    nsAttrs(admission.Create, namespace("ns2", levels("", "", "loud")), nil),
		want: metav1.Status{Status: metav1.StatusFailure, Code: 422, Reason: metav1.StatusReasonInvalid,
			Message: `Namespace "ns2" is invalid: metadata.labels[pod-security.kubernetes.io/warn]: Invalid value: "loud": must be one of privileged, baseline, restricted`,
			Details: &metav1.StatusDetails{Name: "ns2", Kind: "Namespace", Causes: []metav1.StatusCause{{
				Type: metav1.CauseTypeFieldValueInvalid, Field: "metadata.labels[pod-security.kubernetes.io/warn]",
				Message: `Invalid value: "loud": must be one of privileged, baseline, restricted`}}}},
	}, {
		name: "pod in a namespace that cannot be read",
		a:    podAttrs(admission.Create, pod("gone", "p", privilegedSpec()), nil),
		want: metav1.Status{Status: metav1.StatusFailure, Code: 500, Reason: metav1.StatusReasonInternalError,
			Message: `Internal error occurred: failed to lookup namespace "gone"`,
			Details: &metav1.StatusDetails{Causes: []metav1.StatusCause{{Message: `failed to lookup namespace "gone"`}}}},
	}, {
		name: "not a pod: the generic refusal's details",
		a:    attrs(podsGVR, "Pod", admission.Create, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}}, nil),
		want: metav1.Status{Status: metav1.StatusFailure, Code: 400, Reason: metav1.StatusReasonBadRequest,
			Message: "failed to decode pod",
			Details: &metav1.StatusDetails{Name: "p", Kind: "pods"}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			err := p.Validate(context.Background(), tc.a)
			var se interface{ Status() metav1.Status }
			if !errors.As(err, &se) {
				t.Fatalf("error = %v, want a status", err)
			}
			if diff := cmp.Diff(tc.want, se.Status()); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPodNamespaceUnreadable: the client sees a generic internal error,
// the audit log its cause.
func TestPodNamespaceUnreadable(t *testing.T) {
	got, err := run(context.Background(), (&env{}).plugin(t, ""), podAttrs(admission.Create, pod("gone", "p", baselineSpec()), nil))
	if err != nil {
		t.Fatal(err)
	}
	want := outcome{Code: 500, Message: `Internal error occurred: failed to lookup namespace "gone"`,
		Annotations: map[string]string{"pod-security.kubernetes.io/error": `Internal error occurred: failed to lookup namespace "gone": namespaces "gone" not found`}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("outcome (-want +got):\n%s", diff)
	}
}

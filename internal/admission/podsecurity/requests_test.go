package podsecurity

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/portcullis/portcullis/internal/admission"
)

const exemptConfig = `apiVersion: pod-security.admission.config.k8s.io/v1
kind: PodSecurityConfiguration
exemptions:
  usernames: [system:serviceaccount:kube-system:daemon-set-controller]
  namespaces: [kube-system]
  runtimeClasses: [kata]
`

func deployment(ns, name string, spec corev1.PodSpec) *appsv1.Deployment {
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: spec}}}
}

func TestExemptions(t *testing.T) {
	kata := baselineSpec()
	kata.RuntimeClassName = ptr("kata")
	other := baselineSpec()
	other.RuntimeClassName = ptr("runc")
	controller := &user.DefaultInfo{Name: "system:serviceaccount:kube-system:daemon-set-controller"}
	withUser := func(a *admission.Attributes, u user.Info) *admission.Attributes { a.UserInfo = u; return a }

	for _, tc := range []struct {
		name string
		a    *admission.Attributes
		want outcome
	}{{
		name: "exempt namespace",
		a:    podAttrs(admission.Create, pod("kube-system", "p", baselineSpec()), nil),
		want: outcome{Annotations: map[string]string{"pod-security.kubernetes.io/exempt": "namespace"}},
	}, {
		name: "exempt user",
		a:    withUser(podAttrs(admission.Create, pod("ns", "p", baselineSpec()), nil), controller),
		want: outcome{Annotations: map[string]string{"pod-security.kubernetes.io/exempt": "user"}},
	}, {
		name: "exempt runtime class",
		a:    podAttrs(admission.Create, pod("ns", "p", kata), nil),
		want: outcome{Annotations: map[string]string{"pod-security.kubernetes.io/exempt": "runtimeClass"}},
	}, {
		name: "another runtime class is checked",
		a:    podAttrs(admission.Create, pod("ns", "p", other), nil),
		want: outcome{Code: 403, Message: `pods "p" is forbidden: violates PodSecurity "restricted:latest": ` + restrictedViolations,
			Annotations: map[string]string{
				"pod-security.kubernetes.io/enforce-policy":   "restricted:latest",
				"pod-security.kubernetes.io/audit-violations": `would violate PodSecurity "restricted:latest": ` + restrictedViolations,
			}},
	}, {
		name: "a user without a name is not exempt",
		a:    withUser(podAttrs(admission.Create, pod("ns", "p", restrictedSpec()), nil), nil),
		want: outcome{Annotations: map[string]string{"pod-security.kubernetes.io/enforce-policy": "restricted:latest"}},
	}, {
		name: "exempt namespace, deployment",
		a:    attrs(deploymentsGVR, "Deployment", admission.Create, deployment("kube-system", "d", baselineSpec()), nil),
		want: outcome{Annotations: map[string]string{"pod-security.kubernetes.io/exempt": "namespace"}},
	}, {
		name: "exempt runtime class, deployment",
		a:    attrs(deploymentsGVR, "Deployment", admission.Create, deployment("ns", "d", kata), nil),
		want: outcome{Annotations: map[string]string{"pod-security.kubernetes.io/exempt": "runtimeClass"}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			restricted := levels("restricted", "restricted", "restricted")
			e := &env{namespaces: map[string]*corev1.Namespace{
				"ns": namespace("ns", restricted), "kube-system": namespace("kube-system", restricted)}}
			got, err := run(context.Background(), e.plugin(t, exemptConfig), tc.a)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("outcome (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPodUpdatesAndSubresources(t *testing.T) {
	old := pod("ns", "p", privilegedSpec())
	newImage := pod("ns", "p", privilegedSpec())
	newImage.Spec.Containers[0].Image = "img:2"
	relabelled := pod("ns", "p", privilegedSpec())
	relabelled.Labels = map[string]string{"a": "b"}
	withEphemeral := pod("ns", "p", privilegedSpec())
	withEphemeral.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debug", Image: "busybox"}}}
	sub := func(a *admission.Attributes, s string) *admission.Attributes { a.Subresource = s; return a }
	refused := outcome{Code: 403,
		Message:     `pods "p" is forbidden: violates PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)`,
		Annotations: map[string]string{"pod-security.kubernetes.io/enforce-policy": "baseline:latest"}}

	for _, tc := range []struct {
		name string
		a    *admission.Attributes
		want outcome
	}{{
		name: "an update that changes no image is not evaluated",
		a:    podAttrs(admission.Update, relabelled, old),
	}, {
		name: "an image change is evaluated",
		a:    podAttrs(admission.Update, newImage, old),
		want: refused,
	}, {
		name: "status is not evaluated",
		a:    sub(podAttrs(admission.Update, newImage, old), "status"),
	}, {
		name: "an added ephemeral container is evaluated",
		a:    sub(podAttrs(admission.Update, withEphemeral, old), "ephemeralcontainers"),
		want: refused,
	}, {
		name: "an unchanged ephemeral container is not",
		a:    sub(podAttrs(admission.Update, withEphemeral, withEphemeral), "ephemeralcontainers"),
	}, {
		name: "binding is not evaluated",
		a:    sub(attrs(podsGVR, "Binding", admission.Create, &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}}, nil), "binding"),
	}, {
		name: "delete is not evaluated",
		a:    attrs(podsGVR, "Pod", admission.Delete, nil, old),
	}} {
		t.Run(tc.name, func(t *testing.T) {
			e := &env{namespaces: map[string]*corev1.Namespace{"ns": namespace("ns", levels("baseline", "", ""))}}
			got, err := run(context.Background(), e.plugin(t, ""), tc.a)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("outcome (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPodTemplates(t *testing.T) {
	warned := `would violate PodSecurity "restricted:latest": ` + restrictedViolations
	cronJob := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "cj"},
		Spec: batchv1.CronJobSpec{JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: baselineSpec()}}}}}
	for _, tc := range []struct {
		name   string
		labels map[string]string
		a      *admission.Attributes
		want   outcome
	}{{
		name:   "a deployment is warned about and audited, never refused",
		labels: levels("restricted", "restricted", "restricted"),
		a:      attrs(deploymentsGVR, "Deployment", admission.Create, deployment("ns", "d", baselineSpec()), nil),
		want: outcome{Warnings: []string{warned},
			Annotations: map[string]string{"pod-security.kubernetes.io/audit-violations": warned}},
	}, {
		name:   "warn level from enforce",
		labels: levels("restricted", "", ""),
		a:      attrs(deploymentsGVR, "Deployment", admission.Update, deployment("ns", "d", baselineSpec()), deployment("ns", "d", baselineSpec())),
		want:   outcome{Warnings: []string{warned}},
	}, {
		name:   "a conforming template",
		labels: levels("restricted", "restricted", "restricted"),
		a:      attrs(deploymentsGVR, "Deployment", admission.Create, deployment("ns", "d", restrictedSpec()), nil),
	}, {
		name:   "privileged warn and audit: not evaluated",
		labels: levels("restricted", "privileged", "privileged"),
		a:      attrs(deploymentsGVR, "Deployment", admission.Create, deployment("ns", "d", privilegedSpec()), nil),
	}, {
		name:   "cronjob",
		labels: levels("", "", "restricted"),
		a:      attrs(schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "cronjobs"}, "CronJob", admission.Create, cronJob, nil),
		want:   outcome{Warnings: []string{warned}},
	}, {
		name:   "a replication controller without a template",
		labels: levels("", "", "restricted"),
		a: attrs(schema.GroupVersionResource{Version: "v1", Resource: "replicationcontrollers"}, "ReplicationController", admission.Create,
			&corev1.ReplicationController{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "rc"}}, nil),
	}, {
		name:   "the scale subresource is not evaluated",
		labels: levels("", "", "restricted"),
		a: func() *admission.Attributes {
			a := attrs(deploymentsGVR, "Deployment", admission.Update, deployment("ns", "d", baselineSpec()), deployment("ns", "d", baselineSpec()))
			a.Subresource = "scale"
			return a
		}(),
	}, {
		name: "a missing namespace admits with an error annotation",
		a:    attrs(deploymentsGVR, "Deployment", admission.Create, deployment("gone", "d", baselineSpec()), nil),
		want: outcome{Annotations: map[string]string{"pod-security.kubernetes.io/error": `failed to lookup namespace "gone": namespaces "gone" not found`}},
	}, {
		name:   "other resources are not looked at",
		labels: levels("restricted", "restricted", "restricted"),
		a: attrs(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, "ConfigMap", admission.Create,
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "cm"}}, nil),
	}} {
		t.Run(tc.name, func(t *testing.T) {
			e := &env{namespaces: map[string]*corev1.Namespace{"ns": namespace("ns", tc.labels)}}
			got, err := run(context.Background(), e.plugin(t, ""), tc.a)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("outcome (-want +got):\n%s", diff)
			}
		})
	}
}

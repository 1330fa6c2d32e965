package validation

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestDisallowPrivileged(t *testing.T) {
	yes, no := true, false
	spec := corev1.PodSpec{
		InitContainers: []corev1.Container{{Name: "i", SecurityContext: &corev1.SecurityContext{Privileged: &yes}}},
		Containers:     []corev1.Container{{Name: "a", SecurityContext: &corev1.SecurityContext{Privileged: &no}}, {Name: "b", SecurityContext: &corev1.SecurityContext{Privileged: &yes}}},
	}
	tests := []struct {
		name string
		obj  runtime.Object
		want []string
	}{
		{"pod", &corev1.Pod{Spec: spec}, []string{
			"spec.containers[1].securityContext.privileged: Forbidden: disallowed by cluster policy",
			"spec.initContainers[0].securityContext.privileged: Forbidden: disallowed by cluster policy"}},
		{"deployment", &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: spec}}}, []string{
			"spec.template.spec.containers[1].securityContext.privileged: Forbidden: disallowed by cluster policy",
			"spec.template.spec.initContainers[0].securityContext.privileged: Forbidden: disallowed by cluster policy"}},
		{"cronjob", &batchv1.CronJob{Spec: batchv1.CronJobSpec{JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: spec.Containers}}}}}}, []string{
			"spec.jobTemplate.spec.template.spec.containers[1].securityContext.privileged: Forbidden: disallowed by cluster policy"}},
		{"unprivileged pod", &corev1.Pod{Spec: corev1.PodSpec{Containers: spec.Containers[:1]}}, nil},
		{"replication controller without a template", &corev1.ReplicationController{}, nil},
		{"not a workload", &corev1.ConfigMap{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, e := range DisallowPrivileged(tt.obj) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

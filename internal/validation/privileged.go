package validation

import (
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// DisallowPrivileged returns what kube-apiserver refuses without
// --allow-privileged (its default): a privileged container, init
// container or ephemeral container in a pod or in any workload's pod
// template.
func DisallowPrivileged(obj runtime.Object) field.ErrorList {
	spec, p := podSpecOf(obj)
	if spec == nil {
		return nil
	}
	var errs field.ErrorList
	check := func(sc *corev1.SecurityContext, cp *field.Path) {
		if sc != nil && sc.Privileged != nil && *sc.Privileged {
			errs = append(errs, field.Forbidden(cp.Child("securityContext", "privileged"), "disallowed by cluster policy"))
		}
	}
	for i := range spec.Containers {
		check(spec.Containers[i].SecurityContext, p.Child("containers").Index(i))
	}
	for i := range spec.InitContainers {
		check(spec.InitContainers[i].SecurityContext, p.Child("initContainers").Index(i))
	}
	for i := range spec.EphemeralContainers {
		check(spec.EphemeralContainers[i].SecurityContext, p.Child("ephemeralContainers").Index(i))
	}
	return errs
}

// podSpecOf is the pod spec an object holds, with its path, or nil.
func podSpecOf(obj runtime.Object) (*corev1.PodSpec, *field.Path) {
	template := field.NewPath("spec", "template", "spec")
	switch o := obj.(type) {
	case *corev1.Pod:
		return &o.Spec, field.NewPath("spec")
	case *corev1.PodTemplate:
		return &o.Template.Spec, field.NewPath("template", "spec")
	case *corev1.ReplicationController:
		if o.Spec.Template == nil {
			return nil, nil
		}
		return &o.Spec.Template.Spec, template
	case *appsv1.Deployment:
		return &o.Spec.Template.Spec, template
	case *appsv1.ReplicaSet:
		return &o.Spec.Template.Spec, template
	case *appsv1.StatefulSet:
		return &o.Spec.Template.Spec, template
	case *appsv1.DaemonSet:
		return &o.Spec.Template.Spec, template
	case *batchv1.Job:
		return &o.Spec.Template.Spec, template
	case *batchv1.CronJob:
		return &o.Spec.JobTemplate.Spec.Template.Spec, field.NewPath("spec", "jobTemplate", "spec", "template", "spec")
	}
	return nil, nil
}

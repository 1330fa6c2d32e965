package rest

import (
	"maps"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// prepareBatchForCreate gives a new Job whose selector is not manual the
// labels and selector that tie it to its pods, as kube-apiserver does:
// the job's name and uid on the pod template, the uid in the selector.
func prepareBatchForCreate(obj runtime.Object) {
	j, ok := obj.(*batchv1.Job)
	if !ok || j.Spec.ManualSelector != nil && *j.Spec.ManualSelector {
		return
	}
	// Defaulting gave a job without labels its template's labels (the
	// same map in kube-apiserver, so the generated ones land on both).
	shared := len(j.Labels) == 0 || equality.Semantic.DeepEqual(j.Labels, j.Spec.Template.Labels)
	t := &j.Spec.Template
	if t.Labels == nil {
		t.Labels = map[string]string{}
	}
	for _, key := range []string{"job-name", batchv1.JobNameLabel} {
		if _, found := t.Labels[key]; !found {
			t.Labels[key] = j.Name
		}
	}
	for _, key := range []string{"controller-uid", batchv1.ControllerUidLabel} {
		if _, found := t.Labels[key]; !found {
			t.Labels[key] = string(j.UID)
		}
	}
	if shared {
		j.Labels = maps.Clone(t.Labels)
	}
	if j.Spec.Selector == nil {
		j.Spec.Selector = &metav1.LabelSelector{}
	}
	if j.Spec.Selector.MatchLabels == nil {
		j.Spec.Selector.MatchLabels = map[string]string{}
	}
	if _, found := j.Spec.Selector.MatchLabels[batchv1.ControllerUidLabel]; !found {
		j.Spec.Selector.MatchLabels[batchv1.ControllerUidLabel] = string(j.UID)
	}
}

// rcSelector is a ReplicationController's selector as a LabelSelector,
// for its Scale.
func rcSelector(rc *corev1.ReplicationController) *metav1.LabelSelector {
	if rc.Spec.Selector == nil {
		return nil
	}
	return &metav1.LabelSelector{MatchLabels: rc.Spec.Selector}
}

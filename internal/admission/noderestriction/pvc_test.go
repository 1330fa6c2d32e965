package noderestriction

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/portcullis/portcullis/internal/admission"
)

func TestClaimStatus(t *testing.T) {
	p := newPlugin(t, newStore(), Options{})
	claim := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c", ResourceVersion: "5"},
		Spec: corev1.PersistentVolumeClaimSpec{
			VolumeName: "pv",
			Resources:  corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
		},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound},
	}
	with := func(mutate func(*corev1.PersistentVolumeClaim)) *corev1.PersistentVolumeClaim {
		c := claim.DeepCopy()
		mutate(c)
		return c
	}
	update := func(c *corev1.PersistentVolumeClaim) *admission.Attributes {
		return req(admission.Update, "v1/persistentvolumeclaims", "status", "ns", "c", c, claim)
	}
	const prefix = `persistentvolumeclaims "c" is forbidden: `
	const others = `node "n1" is not allowed to update fields other than status.quantity and status.conditions: `
	runAdmit(t, p, []admitCase{
		{name: "unchanged", a: update(claim)},
		{name: "capacity and conditions", a: update(with(func(c *corev1.PersistentVolumeClaim) {
			c.Status.Capacity = corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("2Gi")}
			c.Status.Conditions = []corev1.PersistentVolumeClaimCondition{{Type: corev1.PersistentVolumeClaimFileSystemResizePending, Status: corev1.ConditionTrue}}
		}))},
		{name: "resize status", a: update(with(func(c *corev1.PersistentVolumeClaim) {
			c.Status.AllocatedResources = corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("2Gi")}
			c.Status.AllocatedResourceStatuses = map[corev1.ResourceName]corev1.ClaimResourceStatus{corev1.ResourceStorage: corev1.PersistentVolumeClaimNodeResizeInProgress}
		}))},
		{name: "unconditional update", a: update(with(func(c *corev1.PersistentVolumeClaim) { c.ResourceVersion = "" }))},
		{name: "managed fields", a: update(with(func(c *corev1.PersistentVolumeClaim) {
			c.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubelet"}}
		}))},
		{name: "equal quantities written differently", a: update(with(func(c *corev1.PersistentVolumeClaim) {
			c.Spec.Resources.Requests = corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1024Mi")}
		}))},
		{name: "labels", a: update(with(func(c *corev1.PersistentVolumeClaim) { c.Labels = map[string]string{"a": "1"} })),
			want: prefix + others + `[metadata.labels]`},
		{name: "finalizers and phase", a: update(with(func(c *corev1.PersistentVolumeClaim) {
			c.Finalizers = []string{"x"}
			c.Status.Phase = corev1.ClaimLost
		})), want: prefix + others + `[metadata.finalizers status.phase]`},
		{name: "spec", a: update(with(func(c *corev1.PersistentVolumeClaim) { c.Spec.VolumeName = "other" })),
			want: prefix + others + `[spec.volumeName]`},
		{name: "update the claim itself", a: req(admission.Update, "v1/persistentvolumeclaims", "", "ns", "c", claim, claim),
			want: prefix + `may only update PVC status`},
		{name: "create a claim", a: req(admission.Create, "v1/persistentvolumeclaims", "", "ns", "c", claim, nil),
			want: prefix + `may only update PVC status`},
		{name: "delete a claim", a: req(admission.Delete, "v1/persistentvolumeclaims", "", "ns", "c", nil, claim),
			want: prefix + `may only update PVC status`},
		{name: "create status", a: req(admission.Create, "v1/persistentvolumeclaims", "status", "ns", "c", claim, nil),
			want: prefix + `unexpected operation "CREATE"`},
		{name: "old object missing", a: req(admission.Update, "v1/persistentvolumeclaims", "status", "ns", "c", claim, nil),
			want: prefix + `unexpected type <nil>`},
		{name: "not a claim", a: req(admission.Update, "v1/persistentvolumeclaims", "status", "ns", "c", &corev1.Pod{}, claim),
			want: prefix + `unexpected type *v1.Pod`},
	})
}

func TestChangedPaths(t *testing.T) {
	x := &corev1.PersistentVolumeClaim{Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{"ReadWriteOnce", "ReadOnlyMany"}}}
	y := x.DeepCopy()
	y.Spec.AccessModes[1] = "ReadWriteMany"
	y.Annotations = map[string]string{"a": "1"}
	x.Labels = map[string]string{"gone": "1"}
	y.Labels = map[string]string{"new": "1"}
	got := changedPaths(x, y)
	want := []string{"metadata.annotations", "metadata.labels.gone", "metadata.labels.new", "spec.accessModes[1]"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("changedPaths (-want +got):\n%s", diff)
	}
}

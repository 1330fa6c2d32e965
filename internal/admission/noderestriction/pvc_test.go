package noderestriction

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/diff"

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
	labelled := with(func(c *corev1.PersistentVolumeClaim) { c.Labels = map[string]string{"a": "1"} })
	lost := with(func(c *corev1.PersistentVolumeClaim) {
		c.Finalizers = []string{"x"}
		c.Status.Phase = corev1.ClaimLost
	})
	moved := with(func(c *corev1.PersistentVolumeClaim) { c.Spec.VolumeName = "other" })
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
		{name: "labels", a: update(labelled), want: prefix + others + claimDiff(claim, labelled)},
		{name: "finalizers and phase", a: update(lost), want: prefix + others + claimDiff(claim, lost)},
		{name: "spec", a: update(moved), want: prefix + others + claimDiff(claim, moved)},
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

func claimDiff(old, claim *corev1.PersistentVolumeClaim) string {
	return diff.Diff(internalClaim(comparableClaim(old)), internalClaim(comparableClaim(claim)))
}

// The refusal shows kube-apiserver's diff of its internal objects: Go
// field names outside metadata (recorded from kube-apiserver v1.37.2).
func TestClaimDiff(t *testing.T) {
	x := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "claim"}, Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}}
	y := x.DeepCopy()
	y.Status.Phase = corev1.ClaimBound
	got := claimDiff(x, y)
	for _, want := range []string{"-  \"Phase\": \"Pending\",\n", "+  \"Phase\": \"Bound\",\n", "   \"VolumeAttributesClassName\": null\n", "  \"Status\": {\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("diff lacks %q:\n%s", want, got)
		}
	}
}

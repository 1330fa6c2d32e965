package noderestriction

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/diff"

	"github.com/portcullis/portcullis/internal/admission"
)

// admitClaimStatus lets a node change, in a claim's status, only what the
// kubelet reports after expanding a volume: capacity, conditions and the
// resize fields (RecoverVolumeExpansionFailure, on in every supported
// kube-apiserver). Metadata is protected too: a node must not relabel a
// claim or add finalizers or owners.
func admitClaimStatus(nodeName string, a *admission.Attributes) error {
	if a.Operation != admission.Update {
		return forbidden(a, fmt.Errorf("unexpected operation %q", a.Operation))
	}
	old, ok := as[corev1.PersistentVolumeClaim](a.OldObject)
	if !ok {
		return forbidden(a, fmt.Errorf("unexpected type %s", typeOf(a.OldObject)))
	}
	claim, ok := as[corev1.PersistentVolumeClaim](a.Object)
	if !ok {
		return forbidden(a, fmt.Errorf("unexpected type %s", typeOf(a.Object)))
	}
	old, claim = comparableClaim(old), comparableClaim(claim)
	if apiequality.Semantic.DeepEqual(old, claim) {
		return nil
	}
	// kube-apiserver's words ("quantity" included) and its unified diff
	// of the internal objects' JSON (Go field names, no tags).
	return forbidden(a, fmt.Errorf("node %q is not allowed to update fields other than status.quantity and status.conditions: %v", nodeName, diff.Diff(internalClaim(old), internalClaim(claim))))
}

// comparableClaim is a copy of c without what a node may change, nor the
// resourceVersion (empty in an unconditional update) and managed fields.
func comparableClaim(c *corev1.PersistentVolumeClaim) *corev1.PersistentVolumeClaim {
	c = c.DeepCopy()
	c.ResourceVersion = ""
	c.ManagedFields = nil
	c.Status.Capacity = nil
	c.Status.Conditions = nil
	c.Status.AllocatedResources = nil
	c.Status.AllocatedResourceStatuses = nil
	return c
}

// internalClaim is c shaped as kube-apiserver's internal
// PersistentVolumeClaim, whose JSON the refusal's diff shows: metadata
// with its json names, everything else by Go field name.
func internalClaim(c *corev1.PersistentVolumeClaim) any {
	type typedLocalRef struct {
		APIGroup   *string
		Kind, Name string
	}
	type typedRef struct {
		APIGroup   *string
		Kind, Name string
		Namespace  *string
	}
	type resources struct{ Limits, Requests corev1.ResourceList }
	type spec struct {
		AccessModes               []corev1.PersistentVolumeAccessMode
		Selector                  *metav1.LabelSelector
		Resources                 resources
		VolumeName                string
		StorageClassName          *string
		VolumeMode                *corev1.PersistentVolumeMode
		DataSource                *typedLocalRef
		DataSourceRef             *typedRef
		VolumeAttributesClassName *string
	}
	type condition struct {
		Type                              corev1.PersistentVolumeClaimConditionType
		Status                            corev1.ConditionStatus
		LastProbeTime, LastTransitionTime metav1.Time
		Reason, Message                   string
	}
	type modify struct {
		TargetVolumeAttributesClassName string
		Status                          corev1.PersistentVolumeClaimModifyVolumeStatus
	}
	type healthCondition struct {
		Status          corev1.VolumeHealthStatusType
		Reason, Message string
	}
	type health struct {
		HealthConditions   []healthCondition
		LastTransitionTime metav1.Time
	}
	type status struct {
		Phase                            corev1.PersistentVolumeClaimPhase
		AccessModes                      []corev1.PersistentVolumeAccessMode
		Capacity                         corev1.ResourceList
		Conditions                       []condition
		AllocatedResources               corev1.ResourceList
		AllocatedResourceStatuses        map[corev1.ResourceName]corev1.ClaimResourceStatus
		CurrentVolumeAttributesClassName *string
		ModifyVolumeStatus               *modify
		HealthStatus                     *health
	}
	type claim struct {
		metav1.TypeMeta
		metav1.ObjectMeta
		Spec   spec
		Status status
	}
	out := claim{ObjectMeta: c.ObjectMeta}
	sp := c.Spec
	out.Spec = spec{AccessModes: sp.AccessModes, Selector: sp.Selector, Resources: resources{sp.Resources.Limits, sp.Resources.Requests},
		VolumeName: sp.VolumeName, StorageClassName: sp.StorageClassName, VolumeMode: sp.VolumeMode, VolumeAttributesClassName: sp.VolumeAttributesClassName}
	if d := sp.DataSource; d != nil {
		out.Spec.DataSource = &typedLocalRef{d.APIGroup, d.Kind, d.Name}
	}
	if d := sp.DataSourceRef; d != nil {
		out.Spec.DataSourceRef = &typedRef{d.APIGroup, d.Kind, d.Name, d.Namespace}
	}
	st := c.Status
	out.Status = status{Phase: st.Phase, AccessModes: st.AccessModes, Capacity: st.Capacity, AllocatedResources: st.AllocatedResources,
		AllocatedResourceStatuses: st.AllocatedResourceStatuses, CurrentVolumeAttributesClassName: st.CurrentVolumeAttributesClassName}
	for _, cd := range st.Conditions {
		out.Status.Conditions = append(out.Status.Conditions, condition{cd.Type, cd.Status, cd.LastProbeTime, cd.LastTransitionTime, cd.Reason, cd.Message})
	}
	if m := st.ModifyVolumeStatus; m != nil {
		out.Status.ModifyVolumeStatus = &modify{m.TargetVolumeAttributesClassName, m.Status}
	}
	if h := st.HealthStatus; h != nil {
		out.Status.HealthStatus = &health{LastTransitionTime: h.LastTransitionTime}
		for _, hc := range h.HealthConditions {
			out.Status.HealthStatus.HealthConditions = append(out.Status.HealthStatus.HealthConditions, healthCondition{hc.Status, hc.Reason, hc.Message})
		}
	}
	return out
}

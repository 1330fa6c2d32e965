package registry

import (
	"errors"
	"slices"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	certificatesv1 "k8s.io/api/certificates/v1"
	nodev1 "k8s.io/api/node/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/defaults"
)

// SystemPriorityClassNames are the priority classes every server creates
// at start and refuses to delete, as kube-apiserver does.
var SystemPriorityClassNames = []string{"system-node-critical", "system-cluster-critical"}

// clusterResources are the scheduling, node, autoscaling, storage and
// certificates resources beyond the core workloads: priority and runtime
// classes, volume attributes classes, storage capacities, horizontal pod
// autoscalers (autoscaling/v2, and autoscaling/v1 stored as v2) and trust
// bundles.
func clusterResources() []*Resource {
	storage := func(res string) schema.GroupVersionResource { return gvr(storagev1.GroupName, "v1", res) }
	certs := func(res string) schema.GroupVersionResource { return gvr(certificatesv1.GroupName, "v1", res) }
	hpaV2 := &Resource{GVR: gvr("autoscaling", "v2", "horizontalpodautoscalers"), Kind: "HorizontalPodAutoscaler", Namespaced: true,
		ShortNames: []string{"hpa"}, Categories: []string{"all"}, Status: true, Generation: true,
		New: func() runtime.Object { return &autoscalingv2.HorizontalPodAutoscaler{} }, NewList: func() runtime.Object { return &autoscalingv2.HorizontalPodAutoscalerList{} }}
	// autoscaling/v2 is registered first: the first version of a group is
	// its preferred one in discovery, as in kube-apiserver.
	hpaV1 := &Resource{GVR: gvr("autoscaling", "v1", "horizontalpodautoscalers"), Kind: "HorizontalPodAutoscaler", Namespaced: true,
		ShortNames: []string{"hpa"}, Categories: []string{"all"}, Status: true, Generation: true,
		New: func() runtime.Object { return &autoscalingv1.HorizontalPodAutoscaler{} }, NewList: func() runtime.Object { return &autoscalingv1.HorizontalPodAutoscalerList{} },
		StoredAs: &StoredAs{Resource: hpaV2, ToStored: hpaToStored, FromStored: HPAFromV2}}
	return []*Resource{
		{GVR: gvr(schedulingv1.GroupName, "v1", "priorityclasses"), Kind: "PriorityClass", ShortNames: []string{"pc"},
			New: func() runtime.Object { return &schedulingv1.PriorityClass{} }, NewList: func() runtime.Object { return &schedulingv1.PriorityClassList{} },
			DeleteForbidden: func(name string) error {
				if slices.Contains(SystemPriorityClassNames, name) {
					return apierrors.NewForbidden(schema.GroupResource{Group: schedulingv1.GroupName, Resource: "priorityclasses"}, name,
						errors.New("this is a system priority class and cannot be deleted"))
				}
				return nil
			}},
		{GVR: gvr(nodev1.GroupName, "v1", "runtimeclasses"), ConditionalUpdate: true, Kind: "RuntimeClass",
			New: func() runtime.Object { return &nodev1.RuntimeClass{} }, NewList: func() runtime.Object { return &nodev1.RuntimeClassList{} }},
		hpaV2, hpaV1,
		{GVR: storage("volumeattributesclasses"), ReturnDeleted: true, Kind: "VolumeAttributesClass", ShortNames: []string{"vac"},
			New: func() runtime.Object { return &storagev1.VolumeAttributesClass{} }, NewList: func() runtime.Object { return &storagev1.VolumeAttributesClassList{} }},
		{GVR: storage("csistoragecapacities"), ConditionalUpdate: true, Kind: "CSIStorageCapacity", Namespaced: true,
			New: func() runtime.Object { return &storagev1.CSIStorageCapacity{} }, NewList: func() runtime.Object { return &storagev1.CSIStorageCapacityList{} }},
		{GVR: certs("clustertrustbundles"), ConditionalUpdate: true, Kind: "ClusterTrustBundle",
			New: func() runtime.Object { return &certificatesv1.ClusterTrustBundle{} }, NewList: func() runtime.Object { return &certificatesv1.ClusterTrustBundleList{} },
			Fields: func(o runtime.Object) fields.Set {
				return fields.Set{"spec.signerName": o.(*certificatesv1.ClusterTrustBundle).Spec.SignerName}
			}},
	}
}

// hpaToStored converts a v1 autoscaler to the v2 one it is stored as, with
// v2's defaults: kube-apiserver applies them when it reads the object back
// from storage, so every reader, v1 ones included, sees them.
func hpaToStored(obj runtime.Object) (runtime.Object, error) {
	out, err := HPAToV2(obj)
	if err != nil {
		return nil, err
	}
	defaults.Apply(out)
	return out, nil
}

package rest

import (
	"context"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/portcullis/portcullis/internal/registry"
	"github.com/portcullis/portcullis/internal/storage"
)

// The annotations in which an autoscaling/v1 HorizontalPodAutoscaler
// carries what v1 cannot express, split by the part of the object they
// belong to: a write may only change the part its (sub)resource owns.
var (
	hpaSpecAnnotations   = []string{"autoscaling.alpha.kubernetes.io/metrics", "autoscaling.alpha.kubernetes.io/behavior"}
	hpaStatusAnnotations = []string{"autoscaling.alpha.kubernetes.io/conditions", "autoscaling.alpha.kubernetes.io/current-metrics"}
)

// prepareAutoscalingForCreate drops the status a v1 autoscaler brings in
// annotations, as its status fields are dropped.
func prepareAutoscalingForCreate(obj runtime.Object) {
	if hpa, ok := obj.(*autoscalingv1.HorizontalPodAutoscaler); ok {
		for _, k := range hpaStatusAnnotations {
			delete(hpa.Annotations, k)
		}
	}
}

// prepareAutoscalingForUpdate keeps, for a v1 autoscaler, the annotated
// part of the object the (sub)resource may not change, and bumps the
// generation when the v2 spec it stands for changes.
func prepareAutoscalingForUpdate(sub string, obj, old runtime.Object) {
	hpa, ok := obj.(*autoscalingv1.HorizontalPodAutoscaler)
	if !ok {
		return
	}
	prev := old.(*autoscalingv1.HorizontalPodAutoscaler)
	keep := hpaStatusAnnotations
	if sub == "status" {
		keep = hpaSpecAnnotations
	}
	for _, k := range keep {
		if v, ok := prev.Annotations[k]; ok {
			if hpa.Annotations == nil {
				hpa.Annotations = map[string]string{}
			}
			hpa.Annotations[k] = v
		} else {
			delete(hpa.Annotations, k)
		}
	}
	if sub != "" {
		return
	}
	a, errA := registry.HPAToV2(hpa)
	b, errB := registry.HPAToV2(prev)
	if errA != nil || errB != nil {
		return
	}
	hpa.Generation = prev.Generation
	if !equality.Semantic.DeepEqual(a.(*autoscalingv2.HorizontalPodAutoscaler).Spec, b.(*autoscalingv2.HorizontalPodAutoscaler).Spec) {
		hpa.Generation = prev.Generation + 1
	}
}

// asStored returns what a write of obj stored, as clients read it back:
// for a resource stored as another (autoscaling/v1 autoscalers as v2) the
// answer goes there and back, so it shows what the stored kind made of it.
func (h *Handler) asStored(ctx context.Context, res *registry.Resource, obj runtime.Object, data []byte, rev int64) runtime.Object {
	if res.StoredAs == nil {
		return obj
	}
	back, err := h.o.DecodeContext(ctx, res, storage.KeyValue{Value: data, ModRevision: rev})
	if err != nil {
		return obj
	}
	return back
}

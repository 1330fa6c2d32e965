package quota

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
)

var serviceCountName = ObjectCountName(schema.GroupResource{Resource: "services"})

var serviceResources = []corev1.ResourceName{
	serviceCountName, corev1.ResourceServices, corev1.ResourceServicesNodePorts, corev1.ResourceServicesLoadBalancers,
}

// NewServices is the evaluator of services: every create and update is
// charged, since an update may change the type and its node ports.
func NewServices() *Evaluator {
	return &Evaluator{
		GroupResource: schema.GroupResource{Resource: "services"},
		handles: func(a *admission.Attributes) bool {
			return a.Subresource == "" && (a.Operation == admission.Create || a.Operation == admission.Update)
		},
		matching: func(in []corev1.ResourceName) []corev1.ResourceName { return Intersection(in, serviceResources) },
		usage:    serviceUsage,
	}
}

func serviceUsage(obj runtime.Object) (corev1.ResourceList, error) {
	svc, ok := obj.(*corev1.Service)
	if !ok {
		return corev1.ResourceList{}, fmt.Errorf("expect *v1.Service, got %T", obj)
	}
	count := func(n int) resource.Quantity { return *resource.NewQuantity(int64(n), resource.DecimalSI) }
	out := corev1.ResourceList{
		serviceCountName:                     count(1),
		corev1.ResourceServices:              count(1),
		corev1.ResourceServicesLoadBalancers: {Format: resource.DecimalSI},
		corev1.ResourceServicesNodePorts:     {Format: resource.DecimalSI},
	}
	switch svc.Spec.Type {
	case corev1.ServiceTypeNodePort:
		out[corev1.ResourceServicesNodePorts] = count(len(svc.Spec.Ports))
	case corev1.ServiceTypeLoadBalancer:
		ports := len(svc.Spec.Ports)
		// Without node ports allocated, only the ports that still ask
		// for one count.
		if svc.Spec.AllocateLoadBalancerNodePorts != nil && !*svc.Spec.AllocateLoadBalancerNodePorts {
			ports = 0
			for _, p := range svc.Spec.Ports {
				if p.NodePort != 0 {
					ports++
				}
			}
		}
		out[corev1.ResourceServicesNodePorts] = count(ports)
		out[corev1.ResourceServicesLoadBalancers] = count(1)
	}
	return out, nil
}

package registry

import (
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// flowcontrolResources are API Priority and Fairness's configuration
// objects, flowcontrol.apiserver.k8s.io/v1.
func flowcontrolResources() []*Resource {
	fc := func(res string) schema.GroupVersionResource { return gvr(flowcontrolv1.GroupName, "v1", res) }
	return []*Resource{
		{GVR: fc("flowschemas"), Kind: "FlowSchema", Status: true, Generation: true,
			New: func() runtime.Object { return &flowcontrolv1.FlowSchema{} }, NewList: func() runtime.Object { return &flowcontrolv1.FlowSchemaList{} }},
		{GVR: fc("prioritylevelconfigurations"), Kind: "PriorityLevelConfiguration", Status: true, Generation: true,
			New: func() runtime.Object { return &flowcontrolv1.PriorityLevelConfiguration{} }, NewList: func() runtime.Object { return &flowcontrolv1.PriorityLevelConfigurationList{} }},
	}
}

package registry

import (
	"k8s.io/apimachinery/pkg/runtime"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// apiregistrationResources are the APIServices naming every group version
// served, apiregistration.k8s.io/v1. portcullis serves each group itself:
// APIServices that name a service are stored but not proxied to.
func apiregistrationResources() []*Resource {
	return []*Resource{
		{GVR: gvr(apiregistrationv1.GroupName, "v1", "apiservices"), Kind: "APIService", Status: true, ConditionalUpdate: true, Categories: []string{"api-extensions"},
			New: func() runtime.Object { return &apiregistrationv1.APIService{} }, NewList: func() runtime.Object { return &apiregistrationv1.APIServiceList{} }},
	}
}

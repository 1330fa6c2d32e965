package defaults

import (
	"testing"

	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestNetworkingDefaults(t *testing.T) {
	tests := []struct {
		name string
		obj  runtime.Object
		in   string
		want string
	}{
		{"policy isolates ingress", &networkingv1.NetworkPolicy{},
			`{"spec":{"podSelector":{}}}`,
			`{"metadata":{},"spec":{"podSelector":{},"policyTypes":["Ingress"]}}`},
		{"egress rules isolate egress too; ports are TCP", &networkingv1.NetworkPolicy{},
			`{"spec":{"podSelector":{},"ingress":[{"ports":[{"port":80}]}],"egress":[{"ports":[{"protocol":"UDP"},{}]}]}}`,
			`{"metadata":{},"spec":{"podSelector":{},"ingress":[{"ports":[{"protocol":"TCP","port":80}]}],"egress":[{"ports":[{"protocol":"UDP"},{"protocol":"TCP"}]}],"policyTypes":["Ingress","Egress"]}}`},
		{"policy types given are kept", &networkingv1.NetworkPolicy{},
			`{"spec":{"podSelector":{},"policyTypes":["Egress"]}}`,
			`{"metadata":{},"spec":{"podSelector":{},"policyTypes":["Egress"]}}`},
		{"class parameters are cluster-scoped", &networkingv1.IngressClass{},
			`{"spec":{"controller":"example.com/c","parameters":{"kind":"K","name":"n"}}}`,
			`{"metadata":{},"spec":{"controller":"example.com/c","parameters":{"kind":"K","name":"n","scope":"Cluster"}}}`},
		{"slice ports", &discoveryv1.EndpointSlice{},
			`{"addressType":"IPv4","endpoints":null,"ports":[{"port":80},{"name":"dns","protocol":"UDP"}]}`,
			`{"metadata":{},"addressType":"IPv4","endpoints":null,"ports":[{"name":"","protocol":"TCP","port":80},{"name":"dns","protocol":"UDP"}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := applied(t, tt.obj, tt.in); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

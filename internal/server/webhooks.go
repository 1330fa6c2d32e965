package server

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strconv"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission/webhook"
	"github.com/portcullis/portcullis/internal/informer"
	"github.com/portcullis/portcullis/internal/rest"
)

// serviceResolver finds a Service's endpoint for webhooks configured by
// service: the first ready address of its Endpoints on the target port.
type serviceResolver struct {
	rest func() *rest.Handler
}

func (s serviceResolver) ResolveEndpoint(ctx context.Context, ns, name string, port int32) (*url.URL, error) {
	obj, err := s.rest().Get(ctx, schema.GroupVersionResource{Version: "v1", Resource: "services"}, ns, name)
	if err != nil {
		return nil, err
	}
	svc := obj.(*corev1.Service)
	var sp *corev1.ServicePort
	for i := range svc.Spec.Ports {
		if svc.Spec.Ports[i].Port == port {
			sp = &svc.Spec.Ports[i]
		}
	}
	if sp == nil {
		return nil, fmt.Errorf("service %s/%s has no port %d", ns, name, port)
	}
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		return &url.URL{Scheme: "https", Host: net.JoinHostPort(svc.Spec.ExternalName, strconv.Itoa(int(port)))}, nil
	}
	obj, err = s.rest().Get(ctx, schema.GroupVersionResource{Version: "v1", Resource: "endpoints"}, ns, name)
	if err != nil {
		return nil, err
	}
	for _, subset := range obj.(*corev1.Endpoints).Subsets {
		for _, p := range subset.Ports {
			if p.Name != sp.Name && len(subset.Ports) > 1 {
				continue
			}
			for _, addr := range subset.Addresses {
				return &url.URL{Scheme: "https", Host: net.JoinHostPort(addr.IP, strconv.Itoa(int(p.Port)))}, nil
			}
		}
	}
	return nil, fmt.Errorf("service %s/%s has no ready endpoints", ns, name)
}

// webhookFeed adapts the webhook plugins' typed Upsert/Delete.
func webhookFeed(v *webhook.Validating, m *webhook.Mutating) informer.Handler {
	return informer.HandlerFuncs{
		UpsertFunc: func(o runtime.Object) {
			switch c := o.(type) {
			case *admissionregistrationv1.ValidatingWebhookConfiguration:
				v.Upsert(c)
			case *admissionregistrationv1.MutatingWebhookConfiguration:
				m.Upsert(c)
			}
		},
		DeleteFunc: func(o runtime.Object) {
			switch c := o.(type) {
			case *admissionregistrationv1.ValidatingWebhookConfiguration:
				v.Delete(c)
			case *admissionregistrationv1.MutatingWebhookConfiguration:
				m.Delete(c)
			}
		},
	}
}

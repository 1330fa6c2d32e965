package plugins

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strconv"

	corev1 "k8s.io/api/core/v1"
)

// serviceGetter reads Services and their Endpoints (objects.Objects).
type serviceGetter interface {
	GetService(ctx context.Context, ns, name string) (*corev1.Service, error)
	GetEndpoints(ctx context.Context, ns, name string) (*corev1.Endpoints, error)
}

// serviceResolver finds a Service's endpoint for webhooks configured by
// service: the first ready address of its Endpoints on the target port.
type serviceResolver struct{ get serviceGetter }

func (s serviceResolver) ResolveEndpoint(ctx context.Context, ns, name string, port int32) (*url.URL, error) {
	svc, err := s.get.GetService(ctx, ns, name)
	if err != nil {
		return nil, err
	}
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
	eps, err := s.get.GetEndpoints(ctx, ns, name)
	if err != nil {
		return nil, err
	}
	for _, subset := range eps.Subsets {
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

package webhookclient

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strconv"

	corev1 "k8s.io/api/core/v1"
)

// ServiceResolver turns a webhook's Service reference into the URL to dial
// (scheme https, host:port of an endpoint of the Service). The TLS server
// name is always <name>.<namespace>.svc, whatever host the URL names.
type ServiceResolver interface {
	ResolveEndpoint(ctx context.Context, namespace, name string, port int32) (*url.URL, error)
}

// ServiceResolverFunc adapts a function to ServiceResolver.
type ServiceResolverFunc func(ctx context.Context, namespace, name string, port int32) (*url.URL, error)

// ResolveEndpoint calls f.
func (f ServiceResolverFunc) ResolveEndpoint(ctx context.Context, namespace, name string, port int32) (*url.URL, error) {
	return f(ctx, namespace, name, port)
}

// ServiceGetter reads Services and their Endpoints (objects.Objects).
type ServiceGetter interface {
	GetService(ctx context.Context, ns, name string) (*corev1.Service, error)
	GetEndpoints(ctx context.Context, ns, name string) (*corev1.Endpoints, error)
}

// EndpointsResolver finds a Service's endpoint: the first ready address
// of its Endpoints on the target port, or the external name of an
// ExternalName Service.
type EndpointsResolver struct{ Get ServiceGetter }

// ResolveEndpoint implements ServiceResolver.
func (s EndpointsResolver) ResolveEndpoint(ctx context.Context, ns, name string, port int32) (*url.URL, error) {
	svc, err := s.Get.GetService(ctx, ns, name)
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
	eps, err := s.Get.GetEndpoints(ctx, ns, name)
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

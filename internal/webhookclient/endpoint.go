package webhookclient

import (
	"context"
	"fmt"
	"net/url"
)

// Endpoint is a webhook's clientConfig: where it is and the CA bundle that
// verifies it. Make it once with NewEndpoint and reuse it: it carries the
// key of its HTTP client, as the bundle is kilobytes to copy.
type Endpoint struct {
	// URL is the webhook's URL; nil when Service is set.
	URL *string
	// Service names the webhook's Service; nil when URL is set.
	Service *Service
	key     clientKey
}

// Service is a webhook's Service reference.
type Service struct {
	Namespace, Name string
	// Path is the URL path; "/" when empty.
	Path string
	// Port is the Service's port; 443 when zero.
	Port int32
}

// NewService is the Service of a clientConfig's service reference, whose
// path and port are optional in every API that has one (admission
// webhooks, CRD conversion).
func NewService(namespace, name string, path *string, port *int32) *Service {
	s := &Service{Namespace: namespace, Name: name}
	if path != nil {
		s.Path = *path
	}
	if port != nil {
		s.Port = *port
	}
	return s
}

// ServerName is the name the webhook's certificate must hold.
func (s *Service) ServerName() string { return s.Name + "." + s.Namespace + ".svc" }

// port is the Service port, defaulted.
func (s *Service) port() int32 {
	if s.Port == 0 {
		return 443
	}
	return s.Port
}

// NewEndpoint makes the endpoint of a clientConfig. An empty caBundle
// verifies the webhook by the system's roots.
func NewEndpoint(u *string, svc *Service, caBundle []byte) *Endpoint {
	e := &Endpoint{URL: u, Service: svc, key: clientKey{caBundle: string(caBundle)}}
	if svc != nil {
		e.key.serverName = svc.ServerName()
	}
	return e
}

// Resolve returns the URL to POST to: the configured one, checked, or the
// Service's address from services.
func (e *Endpoint) Resolve(ctx context.Context, services ServiceResolver) (*url.URL, error) {
	if e.URL != nil {
		u, err := url.Parse(*e.URL)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadClientConfig, err)
		}
		switch {
		case u.Scheme != "https":
			return nil, fmt.Errorf("%w: url scheme must be https", ErrBadClientConfig)
		case u.User != nil, u.Fragment != "", u.RawQuery != "":
			return nil, fmt.Errorf("%w: url may not hold user info, a query or a fragment", ErrBadClientConfig)
		case u.Host == "":
			return nil, fmt.Errorf("%w: url has no host", ErrBadClientConfig)
		}
		return u, nil
	}
	s := e.Service
	if s == nil {
		return nil, fmt.Errorf("%w: neither url nor service", ErrBadClientConfig)
	}
	if services == nil {
		return nil, ErrNoServiceResolver
	}
	u, err := services.ResolveEndpoint(ctx, s.Namespace, s.Name, s.port())
	if err != nil {
		return nil, err
	}
	u = &url.URL{Scheme: "https", Host: u.Host, Path: "/"}
	if s.Path != "" {
		u.Path = s.Path
	}
	return u, nil
}

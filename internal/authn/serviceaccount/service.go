package serviceaccount

import "fmt"

// Service is the server's service account token machinery: one set of
// keys and one configuration behind the authenticator, the TokenRequest
// issuer and the OpenID discovery documents.
type Service struct {
	Authenticator *Authenticator
	Requests      *TokenRequests
	Discovery     *Discovery
}

// NewService validates cfg and builds the machinery over keys, reading
// service accounts, pods, secrets and nodes through getter.
func NewService(keys *Keys, cfg Config, getter Getter) (*Service, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	issuer, err := NewIssuer(keys, cfg)
	if err != nil {
		return nil, err
	}
	a, err := NewAuthenticator(keys, cfg, getter)
	if err != nil {
		return nil, err
	}
	reqs, err := NewTokenRequests(issuer, getter)
	if err != nil {
		return nil, err
	}
	disc, err := NewDiscovery(cfg.Issuers[0], keys)
	if err != nil {
		return nil, fmt.Errorf("service account issuer discovery: %w", err)
	}
	return &Service{Authenticator: a, Requests: reqs, Discovery: disc}, nil
}

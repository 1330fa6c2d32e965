package webhookclient

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"

	"go.opentelemetry.io/otel/propagation"

	"github.com/portcullis/portcullis/internal/tracing"
)

// MaxResponseBytes bounds a webhook's answer: a patch or a converted list
// of large objects, with room to spare.
const MaxResponseBytes = 16 << 20

// Request is one call to a webhook.
type Request struct {
	// Body is the JSON review.
	Body []byte
	// Timeout, when set, bounds the call within its context.
	Timeout time.Duration
	// UserAgent, when set, is the User-Agent header.
	UserAgent string
	// Credential picks what to present to the webhook by the URL the
	// endpoint resolved to; nil presents nothing.
	Credential func(u *url.URL) (Credential, error)
}

// Credential is what the apiserver presents to a webhook.
type Credential interface {
	// Name tells credentials apart in the client cache.
	Name() string
	// Certificate is the client certificate of the TLS handshake, or nil.
	Certificate() *tls.Certificate
	// Authorize adds header credentials to a request.
	Authorize(req *http.Request)
}

// Response is a webhook's answer, whatever its status.
type Response struct {
	StatusCode int
	Header     http.Header
	Body       []byte
}

// clientKey identifies the TLS settings of a client.
type clientKey struct {
	caBundle, serverName string
	// user is the credential presented (its client certificate).
	user string
}

// Client calls webhooks. It is safe for concurrent use.
type Client struct {
	services ServiceResolver
	mu       sync.Mutex
	clients  map[clientKey]*http.Client
}

// New returns a client that resolves Service references with services
// (nil fails them with ErrNoServiceResolver).
func New(services ServiceResolver) *Client {
	return &Client{services: services, clients: map[clientKey]*http.Client{}}
}

// HTTPClient returns the cached client for e's TLS settings and cred
// (nil for none), making it on first use.
func (c *Client) HTTPClient(e *Endpoint, cred Credential) (*http.Client, error) {
	k := e.key
	var cert *tls.Certificate
	if cred != nil {
		k.user, cert = cred.Name(), cred.Certificate()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if cl, ok := c.clients[k]; ok {
		return cl, nil
	}
	tlsCfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: k.serverName}
	if k.caBundle != "" {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM([]byte(k.caBundle)) {
			return nil, fmt.Errorf("%w: caBundle holds no PEM certificate", ErrBadClientConfig)
		}
		tlsCfg.RootCAs = pool
	}
	if cert != nil {
		tlsCfg.Certificates = []tls.Certificate{*cert}
	}
	tr := &http.Transport{
		TLSClientConfig:     tlsCfg,
		ForceAttemptHTTP2:   true,
		MaxIdleConnsPerHost: 32,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 10 * time.Second,
	}
	cl := &http.Client{
		Transport: tr,
		// Webhooks answer; they do not send the apiserver elsewhere.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	c.clients[k] = cl
	return cl, nil
}

// Retain drops the clients that none of endpoints needs.
func (c *Client) Retain(endpoints []*Endpoint) {
	keep := map[clientKey]bool{}
	for _, e := range endpoints {
		keep[e.key] = true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, cl := range c.clients {
		if !keep[clientKey{caBundle: k.caBundle, serverName: k.serverName}] {
			cl.CloseIdleConnections()
			delete(c.clients, k)
		}
	}
}

// Post sends r.Body to the webhook within ctx and returns its answer,
// whatever its status; an error means there is no answer. Like
// kube-apiserver, it tells the webhook its deadline in the timeout query
// parameter, rounded up to whole seconds.
func (c *Client) Post(ctx context.Context, e *Endpoint, r Request) (*Response, error) {
	u, err := e.Resolve(ctx, c.services)
	if err != nil {
		return nil, err
	}
	var cred Credential
	if r.Credential != nil {
		if cred, err = r.Credential(u); err != nil {
			return nil, err
		}
	}
	cl, err := c.HTTPClient(e, cred)
	if err != nil {
		return nil, err
	}
	if r.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.Timeout)
		defer cancel()
	}
	if deadline, ok := ctx.Deadline(); ok {
		if timeout := time.Until(deadline); timeout > 0 {
			if t := timeout.Truncate(time.Second); t != timeout {
				timeout = t + time.Second
			}
			q := u.Query()
			q.Set("timeout", timeout.String())
			u.RawQuery = q.Encode()
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(r.Body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, */*")
	if r.UserAgent != "" {
		req.Header.Set("User-Agent", r.UserAgent)
	}
	// The webhook's own spans join the request's trace (nothing is set
	// when the request is not traced).
	tracing.Propagators().Inject(ctx, propagation.HeaderCarrier(req.Header))
	if cred != nil {
		cred.Authorize(req)
	}
	resp, err := cl.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxResponseBytes {
		return nil, ErrResponseTooLarge
	}
	return &Response{StatusCode: resp.StatusCode, Header: resp.Header, Body: data}, nil
}

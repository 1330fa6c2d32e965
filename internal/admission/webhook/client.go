package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/propagation"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/tracing"
)

// maxResponseBytes bounds a webhook's answer: a patch of the largest
// object, base64-encoded, with room to spare.
const maxResponseBytes = 16 << 20

// clientKey identifies the TLS settings of a client.
type clientKey struct {
	caBundle, serverName string
	// user is the kubeconfig user whose client certificate is presented.
	user string
}

// clientCache keeps one http.Client per CA bundle and server name, so
// that connections (HTTP/2 where the server offers it) are reused across
// requests; clients no configured webhook needs are dropped.
type clientCache struct {
	mu      sync.Mutex
	clients map[clientKey]*http.Client
}

func newClientCache() *clientCache { return &clientCache{clients: map[clientKey]*http.Client{}} }

func (c *clientCache) get(k clientKey, cert *tls.Certificate) (*http.Client, error) {
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

// retain drops the clients the hooks no longer need.
func (c *clientCache) retain(hooks []*hook) {
	keep := map[clientKey]bool{}
	for _, h := range hooks {
		keep[h.key] = true
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

func clientKeyOf(cc admissionregistrationv1.WebhookClientConfig) clientKey {
	k := clientKey{caBundle: string(cc.CABundle)}
	if s := cc.Service; s != nil {
		k.serverName = s.Name + "." + s.Namespace + ".svc"
	}
	return k
}

// endpoint returns the URL to POST to.
func (p *plugin) endpoint(ctx context.Context, h *hook) (*url.URL, error) {
	cc := &h.client
	if cc.URL != nil {
		u, err := url.Parse(*cc.URL)
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
	s := cc.Service
	if s == nil {
		return nil, fmt.Errorf("%w: neither url nor service", ErrBadClientConfig)
	}
	if p.opts.Services == nil {
		return nil, ErrNoServiceResolver
	}
	port := int32(443)
	if s.Port != nil {
		port = *s.Port
	}
	u, err := p.opts.Services.ResolveEndpoint(ctx, s.Namespace, s.Name, port)
	if err != nil {
		return nil, err
	}
	u = &url.URL{Scheme: "https", Host: u.Host, Path: "/"}
	if s.Path != nil && *s.Path != "" {
		u.Path = *s.Path
	}
	return u, nil
}

// credentialTarget is the name kubeconfig users are matched against: the
// URL's host (with its port, if any) or <name>.<namespace>.svc:<port>.
func credentialTarget(h *hook, u *url.URL) string {
	if s := h.client.Service; s != nil {
		port := int32(443)
		if s.Port != nil {
			port = *s.Port
		}
		return net.JoinHostPort(s.Name+"."+s.Namespace+".svc", strconv.Itoa(int(port)))
	}
	return u.Host
}

// post sends body to the webhook within ctx and returns the answer. Like
// kube-apiserver, it tells the webhook its deadline in the timeout query
// parameter, rounded up to whole seconds.
func (p *plugin) post(ctx context.Context, h *hook, body []byte) ([]byte, error) {
	u, err := p.endpoint(ctx, h)
	if err != nil {
		return nil, err
	}
	user, err := p.creds.lookup(credentialTarget(h, u))
	if err != nil {
		return nil, err
	}
	key := h.key
	var cert *tls.Certificate
	if user != nil {
		key.user, cert = user.name, user.cert
	}
	cl, err := p.clients.get(key, cert)
	if err != nil {
		return nil, err
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
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, */*")
	// The webhook's own spans join the request's trace (nothing is set
	// when the request is not traced).
	tracing.Propagators().Inject(ctx, propagation.HeaderCarrier(req.Header))
	user.authorize(req)
	resp, err := cl.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxResponseBytes {
		return nil, ErrResponseTooLarge
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, httpStatusError(resp, data)
	}
	return data, nil
}

// httpStatusError is client-go's error for a non-2xx answer that is not a
// Status: the text of a text body, the code's generic message otherwise.
func httpStatusError(resp *http.Response, data []byte) error {
	msg := ""
	if ct := resp.Header.Get("Content-Type"); strings.HasPrefix(ct, "text/") || ct == "" {
		msg = strings.TrimSpace(string(data))
		if len(msg) > 1024 {
			msg = msg[:1024]
		}
	}
	retry := 0
	if s := resp.Header.Get("Retry-After"); s != "" {
		retry, _ = strconv.Atoi(s)
	}
	return apierrors.NewGenericServerResponse(resp.StatusCode, http.MethodPost, schema.GroupResource{}, "", msg, retry, true)
}

// isCanceled reports a call cut short by the request's own cancellation.
func isCanceled(err error) bool { return errors.Is(err, context.Canceled) }

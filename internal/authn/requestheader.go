package authn

import (
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"k8s.io/apiserver/pkg/authentication/user"
)

// RequestHeaderConfig are kube-apiserver's --requestheader-* flags: an
// authenticating front proxy, proven by a client certificate signed by
// ClientCA (and, when AllowedNames is not empty, with one of those common
// names), names the user in request headers.
type RequestHeaderConfig struct {
	ClientCA            *x509.CertPool
	AllowedNames        []string
	UsernameHeaders     []string
	UIDHeaders          []string
	GroupHeaders        []string
	ExtraHeaderPrefixes []string
}

// Validate returns the flag errors kube-apiserver refuses to start with.
// uidGate is the RemoteRequestHeaderUID feature gate.
func (c RequestHeaderConfig) Validate(uidGate bool) error {
	var errs []error
	for _, f := range []struct {
		flag   string
		values []string
	}{
		{"requestheader-username-headers", c.UsernameHeaders},
		{"requestheader-group-headers", c.GroupHeaders},
		{"requestheader-extra-headers-prefix", c.ExtraHeaderPrefixes},
	} {
		if slices.ContainsFunc(f.values, func(v string) bool { return strings.TrimSpace(v) == "" }) {
			errs = append(errs, fmt.Errorf("empty value in %q", f.flag))
		}
	}
	switch {
	case !uidGate && len(c.UIDHeaders) > 0:
		errs = append(errs, errors.New(`--requestheader-uid-headers requires the "RemoteRequestHeaderUID" feature to be enabled`))
	case slices.ContainsFunc(c.UIDHeaders, func(v string) bool { return strings.TrimSpace(v) == "" }):
		errs = append(errs, errors.New(`empty value in "requestheader-uid-headers"`))
	case len(c.UIDHeaders) > 0 && !slices.ContainsFunc(c.UIDHeaders, func(v string) bool { return strings.EqualFold(v, "X-Remote-Uid") }):
		errs = append(errs, errors.New("--requestheader-uid-headers is set without specifying the standard X-Remote-Uid header - API aggregation will not work"))
	}
	return errors.Join(errs...)
}

// RequestHeader authenticates requests from a front proxy. It runs before
// the client certificate authenticator, as in kube-apiserver: a proxy
// certificate without a user header authenticates as itself there.
type RequestHeader struct {
	cfg      RequestHeaderConfig
	verified *verifiedCache
}

// NewRequestHeader returns the front-proxy authenticator of c.
func NewRequestHeader(c RequestHeaderConfig) *RequestHeader {
	return &RequestHeader{cfg: c, verified: newVerifiedCache(1024)}
}

// AuthenticateRequest implements Authenticator. The headers it read are
// removed from the request, so nothing after authentication (an
// aggregated server, a webhook) can mistake them for the proxy's word.
func (a *RequestHeader) AuthenticateRequest(r *http.Request) (user.Info, bool, error) {
	if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
		return nil, false, nil
	}
	leaf := r.TLS.PeerCertificates[0]
	key := newChainKey(r.TLS.PeerCertificates, a.cfg.ClientCA)
	if !a.verified.ok(key, time.Now()) {
		inter := x509.NewCertPool()
		for _, c := range r.TLS.PeerCertificates[1:] {
			inter.AddCert(c)
		}
		if _, err := leaf.Verify(x509.VerifyOptions{Roots: a.cfg.ClientCA, Intermediates: inter,
			KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
			return nil, false, err
		}
		a.verified.add(key, leaf.NotAfter)
	}
	if len(a.cfg.AllowedNames) > 0 && !slices.Contains(a.cfg.AllowedNames, leaf.Subject.CommonName) {
		return nil, false, fmt.Errorf("x509: subject with cn=%s is not in the allowed list", leaf.Subject.CommonName)
	}
	name := firstHeader(r.Header, a.cfg.UsernameHeaders)
	if name == "" {
		return nil, false, nil
	}
	info := &user.DefaultInfo{
		Name:   name,
		UID:    firstHeader(r.Header, a.cfg.UIDHeaders),
		Groups: allHeaders(r.Header, a.cfg.GroupHeaders),
		Extra:  extraHeaders(r.Header, a.cfg.ExtraHeaderPrefixes),
	}
	a.clear(r.Header)
	return info, true, nil
}

func (a *RequestHeader) clear(h http.Header) {
	for _, names := range [][]string{a.cfg.UsernameHeaders, a.cfg.UIDHeaders, a.cfg.GroupHeaders} {
		for _, n := range names {
			h.Del(n)
		}
	}
	for k := range h {
		if hasPrefixFold(k, a.cfg.ExtraHeaderPrefixes) {
			delete(h, k)
		}
	}
}

// firstHeader is the first non-empty value of the first header of names
// that has one.
func firstHeader(h http.Header, names []string) string {
	for _, n := range names {
		if v := h.Get(n); v != "" {
			return v
		}
	}
	return ""
}

// allHeaders are the non-empty values of every header of names, in order.
func allHeaders(h http.Header, names []string) []string {
	out := []string{}
	for _, n := range names {
		for _, v := range h.Values(n) {
			if v != "" {
				out = append(out, v)
			}
		}
	}
	return out
}

// extraHeaders are the extra values: the lower-cased, %-decoded rest of
// every header name with one of prefixes (prefix by prefix, so values
// keep the prefixes' order).
func extraHeaders(h http.Header, prefixes []string) map[string][]string {
	out := map[string][]string{}
	for _, p := range prefixes {
		for k, vs := range h {
			if len(k) < len(p) || !strings.EqualFold(k[:len(p)], p) {
				continue
			}
			key := strings.ToLower(k[len(p):])
			if dec, err := url.PathUnescape(key); err == nil {
				key = dec
			}
			out[key] = append(out[key], vs...)
		}
	}
	return out
}

func hasPrefixFold(s string, prefixes []string) bool {
	return slices.ContainsFunc(prefixes, func(p string) bool {
		return len(s) >= len(p) && strings.EqualFold(s[:len(p)], p)
	})
}

package authn

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"time"

	"k8s.io/apiserver/pkg/authentication/user"
)

// Authenticator recognises one kind of credential.
type Authenticator interface {
	// AuthenticateRequest returns the user, whether the credential was
	// recognised, and an error when it was presented but is not valid.
	AuthenticateRequest(r *http.Request) (user.Info, bool, error)
}

// Func adapts a function to Authenticator.
type Func func(r *http.Request) (user.Info, bool, error)

// AuthenticateRequest calls f.
func (f Func) AuthenticateRequest(r *http.Request) (user.Info, bool, error) { return f(r) }

// Union asks each authenticator in order; the first that recognises the
// credential decides. Errors of authenticators that did not recognise it
// are returned together when none did.
type Union []Authenticator

// AuthenticateRequest implements Authenticator.
func (u Union) AuthenticateRequest(r *http.Request) (user.Info, bool, error) {
	var errs []error
	for _, a := range u {
		info, ok, err := a.AuthenticateRequest(r)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if ok {
			return WithAuthenticatedGroup(info), true, nil
		}
	}
	return nil, false, errors.Join(errs...)
}

// WithAuthenticatedGroup adds system:authenticated, which every authenticated user has.
func WithAuthenticatedGroup(u user.Info) user.Info {
	for _, g := range u.GetGroups() {
		if g == user.AllAuthenticated {
			return u
		}
	}
	return &user.DefaultInfo{Name: u.GetName(), UID: u.GetUID(),
		Groups: append(append([]string(nil), u.GetGroups()...), user.AllAuthenticated), Extra: u.GetExtra()}
}

// X509 authenticates client certificates signed by one of roots: the
// common name is the user, the organizations are the groups. Successful
// verifications are remembered until the certificate expires, so a client
// pays for the signature checks once, not on every request.
type X509 struct {
	roots    func() *x509.CertPool
	verified *verifiedCache
}

// NewX509 returns an x509 authenticator trusting roots (read on every
// verification, so the pool may change).
func NewX509(roots func() *x509.CertPool) *X509 {
	return &X509{roots: roots, verified: newVerifiedCache(4096)}
}

// AuthenticateRequest implements Authenticator.
func (a *X509) AuthenticateRequest(r *http.Request) (user.Info, bool, error) {
	if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
		return nil, false, nil
	}
	leaf := r.TLS.PeerCertificates[0]
	roots := a.roots()
	key := newChainKey(r.TLS.PeerCertificates, roots)
	if !a.verified.ok(key, time.Now()) {
		inter := x509.NewCertPool()
		for _, c := range r.TLS.PeerCertificates[1:] {
			inter.AddCert(c)
		}
		_, err := leaf.Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter,
			KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
		if err != nil {
			return nil, false, fmt.Errorf("verifying certificate %s failed: %w", describe(leaf), err)
		}
		a.verified.add(key, leaf.NotAfter)
	}
	if leaf.Subject.CommonName == "" {
		return nil, false, errors.New("x509: certificate has no common name")
	}
	// kube-apiserver identifies the credential by the leaf's fingerprint,
	// which audit events and authorization webhooks then carry.
	fp := sha256.Sum256(leaf.Raw)
	return &user.DefaultInfo{Name: leaf.Subject.CommonName, Groups: leaf.Subject.Organization,
		Extra: map[string][]string{user.CredentialIDKey: {"X509SHA256=" + hex.EncodeToString(fp[:])}}}, true, nil
}

func describe(c *x509.Certificate) string {
	return fmt.Sprintf("SN=%s, CN=%s, groups=%v, issuer=%q", c.SerialNumber, c.Subject.CommonName, c.Subject.Organization, c.Issuer.String())
}

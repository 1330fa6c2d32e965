package serviceaccount

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"
)

// Ref names an object a token is issued for or bound to.
type Ref struct {
	Name string
	UID  types.UID
}

// Request describes one bound token.
type Request struct {
	Namespace      string
	ServiceAccount Ref
	// Audiences defaults to the API audiences.
	Audiences []string
	// ExpirationSeconds defaults to DefaultExpirationSeconds, must be at
	// least MinExpirationSeconds and is capped by Config.MaxExpiration.
	ExpirationSeconds int64
	// At most one of Pod, Secret and Node binds the token; Node may also
	// accompany Pod to record the pod's node (its UID may be empty when
	// the node is unknown), as kube-apiserver does.
	Pod, Secret, Node *Ref
}

// Issuer signs service account tokens with the signing key.
type Issuer struct {
	issuer          string
	apiAudiences    []string
	signer          jose.Signer
	maxSeconds      int64
	extend          bool
	extendedSeconds int64

	now   func() time.Time
	newID func() string
}

// NewIssuer returns an issuer for cfg.Issuers[0] signing with
// keys.Signing.
func NewIssuer(keys *Keys, cfg Config) (*Issuer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if keys == nil || keys.Signing == nil {
		return nil, fmt.Errorf("%w: no signing key", ErrInvalidConfig)
	}
	alg, err := algorithmFor(keys.Signing)
	if err != nil {
		return nil, err
	}
	kid := keys.SigningKeyID
	if kid == "" {
		if kid, err = KeyID(keys.Signing.Public()); err != nil {
			return nil, err
		}
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: jose.JSONWebKey{
		Key: keys.Signing, KeyID: kid, Algorithm: string(alg), Use: "sig",
	}}, nil)
	if err != nil {
		return nil, fmt.Errorf("creating service account token signer: %w", err)
	}
	extended := cfg.MaxExtendedExpiration
	if extended == 0 {
		extended = DefaultMaxExtendedExpiration
	}
	return &Issuer{
		issuer:          cfg.Issuers[0],
		apiAudiences:    cfg.apiAudiences(),
		signer:          signer,
		maxSeconds:      int64(cfg.MaxExpiration / time.Second),
		extend:          cfg.ExtendExpiration,
		extendedSeconds: int64(extended / time.Second),
		now:             time.Now,
		newID:           func() string { return string(uuid.NewUUID()) },
	}, nil
}

// APIAudiences returns the audiences tokens get when none are requested.
func (i *Issuer) APIAudiences() []string { return slices.Clone(i.apiAudiences) }

// Issue signs a bound token. exp is the expiration a TokenRequest reports:
// the requested one after the cap, even when the token itself was
// extended.
func (i *Issuer) Issue(r Request) (token string, exp time.Time, err error) {
	t, err := i.issue(r, i.now())
	return t.token, t.expires, err
}

type issued struct {
	token   string
	expires time.Time
	jti     string
}

func (i *Issuer) issue(r Request, now time.Time) (issued, error) {
	if r.Namespace == "" || r.ServiceAccount.Name == "" {
		return issued{}, fmt.Errorf("%w: namespace and service account name are required", ErrInvalidRequest)
	}
	if r.Secret != nil && (r.Pod != nil || r.Node != nil) {
		return issued{}, fmt.Errorf("%w: token can only be bound to one object type", ErrInvalidRequest)
	}
	seconds := r.ExpirationSeconds
	if seconds == 0 {
		seconds = DefaultExpirationSeconds
	}
	if seconds < MinExpirationSeconds {
		return issued{}, fmt.Errorf("%w: may not specify a duration less than 10 minutes", ErrInvalidExpiration)
	}
	if seconds > MaxExpirationSeconds {
		return issued{}, fmt.Errorf("%w: may not specify a duration larger than 2^32 seconds", ErrInvalidExpiration)
	}
	seconds = i.capped(seconds)
	auds := r.Audiences
	if len(auds) == 0 {
		auds = i.apiAudiences
	}

	pc := &privateClaims{
		Namespace:      r.Namespace,
		ServiceAccount: ref{Name: r.ServiceAccount.Name, UID: string(r.ServiceAccount.UID)},
		Pod:            toRef(r.Pod),
		Secret:         toRef(r.Secret),
		Node:           toRef(r.Node),
	}
	// Projected volumes of old kubelets never re-read their token; their
	// pod-bound API tokens live longer and say when they should have been
	// refreshed.
	lifetime := seconds
	if i.extend && r.Pod != nil && seconds == WarnOnlyExpirationSeconds && i.onlyAPIAudiences(auds) {
		pc.WarnAfter = jwt.NewNumericDate(now.Add(time.Duration(seconds) * time.Second))
		lifetime = i.extendedSeconds
	}
	c := boundClaims{
		Audience:   audience(auds),
		Expiry:     jwt.NewNumericDate(now.Add(time.Duration(lifetime) * time.Second)),
		IssuedAt:   jwt.NewNumericDate(now),
		Issuer:     i.issuer,
		ID:         i.newID(),
		Kubernetes: pc,
		NotBefore:  jwt.NewNumericDate(now),
		Subject:    Username(r.Namespace, r.ServiceAccount.Name),
	}
	token, err := i.sign(c)
	if err != nil {
		return issued{}, err
	}
	return issued{token: token, expires: now.Add(time.Duration(seconds) * time.Second), jti: c.ID}, nil
}

// capped applies --service-account-max-token-expiration.
func (i *Issuer) capped(seconds int64) int64 {
	if i.maxSeconds > 0 && seconds > i.maxSeconds {
		return i.maxSeconds
	}
	return seconds
}

func (i *Issuer) onlyAPIAudiences(auds []string) bool {
	for _, a := range auds {
		if !slices.Contains(i.apiAudiences, a) {
			return false
		}
	}
	return true
}

// IssueLegacy signs a secret-based token for the secret secretName of a
// service account, as the tokens controller of kube-controller-manager
// did. Such a token never expires; it is valid while the secret holds it.
func (i *Issuer) IssueLegacy(namespace string, sa Ref, secretName string) (string, error) {
	if namespace == "" || sa.Name == "" || sa.UID == "" || secretName == "" {
		return "", fmt.Errorf("%w: namespace, service account name and UID, and secret name are required", ErrInvalidRequest)
	}
	return i.sign(legacyClaims{
		Issuer:             LegacyIssuer,
		Namespace:          namespace,
		SecretName:         secretName,
		ServiceAccountName: sa.Name,
		ServiceAccountUID:  string(sa.UID),
		Subject:            Username(namespace, sa.Name),
	})
}

func (i *Issuer) sign(claims any) (string, error) {
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", fmt.Errorf("encoding service account token: %w", err)
	}
	jws, err := i.signer.Sign(payload)
	if err != nil {
		return "", fmt.Errorf("signing service account token: %w", err)
	}
	return jws.CompactSerialize()
}

func toRef(r *Ref) *ref {
	if r == nil {
		return nil
	}
	return &ref{Name: r.Name, UID: string(r.UID)}
}

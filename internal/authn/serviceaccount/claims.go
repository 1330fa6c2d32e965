package serviceaccount

import (
	"encoding/json"

	"github.com/go-jose/go-jose/v4/jwt"
	"k8s.io/apiserver/pkg/authentication/user"
)

// Identity strings, as kube-apiserver spells them.
const (
	UsernamePrefix       = "system:serviceaccount:"
	AllServiceAccounts   = "system:serviceaccounts"
	NamespaceGroupPrefix = "system:serviceaccounts:"

	PodNameKey      = "authentication.kubernetes.io/pod-name"
	PodUIDKey       = "authentication.kubernetes.io/pod-uid"
	NodeNameKey     = "authentication.kubernetes.io/node-name"
	NodeUIDKey      = "authentication.kubernetes.io/node-uid"
	CredentialIDKey = user.CredentialIDKey

	// IssuedCredentialIDAuditAnnotation is the audit annotation a
	// TokenRequest records the new token's credential ID under.
	IssuedCredentialIDAuditAnnotation = "authentication.kubernetes.io/issued-credential-id"

	// LegacyIssuer is the "iss" of secret-based tokens.
	LegacyIssuer = "kubernetes/serviceaccount"
	// LegacyInvalidSinceLabel marks a secret whose legacy token is no
	// longer accepted.
	LegacyInvalidSinceLabel = "kubernetes.io/legacy-token-invalid-since"
)

// Username is the user name of a service account.
func Username(namespace, name string) string {
	return UsernamePrefix + namespace + ":" + name
}

// CredentialID is the user extra value for a token's "jti".
func CredentialID(jti string) string {
	if jti == "" {
		return ""
	}
	return "JTI=" + jti
}

// boundClaims is the payload of a bound token. Fields are in alphabetical
// order so that the JSON matches kube-apiserver's byte for byte.
type boundClaims struct {
	Audience   audience         `json:"aud,omitempty"`
	Expiry     *jwt.NumericDate `json:"exp,omitempty"`
	IssuedAt   *jwt.NumericDate `json:"iat,omitempty"`
	Issuer     string           `json:"iss,omitempty"`
	ID         string           `json:"jti,omitempty"`
	Kubernetes *privateClaims   `json:"kubernetes.io,omitempty"`
	NotBefore  *jwt.NumericDate `json:"nbf,omitempty"`
	Subject    string           `json:"sub,omitempty"`
}

type privateClaims struct {
	Namespace      string           `json:"namespace,omitempty"`
	Node           *ref             `json:"node,omitempty"`
	Pod            *ref             `json:"pod,omitempty"`
	Secret         *ref             `json:"secret,omitempty"`
	ServiceAccount ref              `json:"serviceaccount"`
	WarnAfter      *jwt.NumericDate `json:"warnafter,omitempty"`
}

type ref struct {
	Name string `json:"name,omitempty"`
	UID  string `json:"uid,omitempty"`
}

// legacyClaims is the payload of a secret-based token.
type legacyClaims struct {
	Audience           audience `json:"aud,omitempty"`
	Issuer             string   `json:"iss"`
	Namespace          string   `json:"kubernetes.io/serviceaccount/namespace"`
	SecretName         string   `json:"kubernetes.io/serviceaccount/secret.name"`
	ServiceAccountName string   `json:"kubernetes.io/serviceaccount/service-account.name"`
	ServiceAccountUID  string   `json:"kubernetes.io/serviceaccount/service-account.uid"`
	Subject            string   `json:"sub"`
}

// audience is written as an array, as kube-apiserver writes it, and read
// as a string or an array, as RFC 7519 allows.
type audience []string

func (a audience) MarshalJSON() ([]byte, error) { return json.Marshal([]string(a)) }

func (a *audience) UnmarshalJSON(b []byte) error {
	var v jwt.Audience
	if err := v.UnmarshalJSON(b); err != nil {
		return err
	}
	*a = audience(v)
	return nil
}

// identity is what a verified token says about its bearer.
type identity struct {
	Namespace, Name, UID string
	PodName, PodUID      string
	NodeName, NodeUID    string
	CredentialID         string
}

// userInfo builds the user exactly as kube-apiserver does: pod extras
// only with both name and UID, the node UID only with the node name.
func (id identity) userInfo() *user.DefaultInfo {
	u := &user.DefaultInfo{
		Name:   Username(id.Namespace, id.Name),
		UID:    id.UID,
		Groups: []string{AllServiceAccounts, NamespaceGroupPrefix + id.Namespace},
	}
	set := func(k, v string) {
		if u.Extra == nil {
			u.Extra = map[string][]string{}
		}
		u.Extra[k] = []string{v}
	}
	if id.PodName != "" && id.PodUID != "" {
		set(PodNameKey, id.PodName)
		set(PodUIDKey, id.PodUID)
	}
	if id.CredentialID != "" {
		set(CredentialIDKey, id.CredentialID)
	}
	if id.NodeName != "" {
		set(NodeNameKey, id.NodeName)
		if id.NodeUID != "" {
			set(NodeUIDKey, id.NodeUID)
		}
	}
	return u
}

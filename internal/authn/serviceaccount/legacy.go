package serviceaccount

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validation"
)

// verifyLegacy checks a secret-based token: its claims, that its secret
// still holds exactly this token, and that its service account exists.
// The messages are kube-apiserver's.
func (a *Authenticator) verifyLegacy(ctx context.Context, token string, payload []byte) (*Result, error) {
	var c legacyClaims
	if err := json.Unmarshal(payload, &c); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformedToken, err)
	}
	if c.Issuer != LegacyIssuer {
		return nil, rejected(ErrInvalidIssuer, "token issuer %q is invalid", c.Issuer)
	}
	auds, err := a.audiences(ctx, c.Audience)
	if err != nil {
		return nil, err
	}
	missing := func(claim string) error { return rejected(ErrMissingClaims, "%s claim is missing", claim) }
	switch {
	case c.Subject == "":
		return nil, missing("sub")
	case c.Namespace == "":
		return nil, missing("namespace")
	case c.SecretName == "":
		return nil, missing("secretName")
	case c.ServiceAccountName == "":
		return nil, missing("serviceAccountName")
	case c.ServiceAccountUID == "":
		return nil, missing("serviceAccountUID")
	}
	if c.Subject != Username(c.Namespace, c.ServiceAccountName) ||
		len(validation.ValidateNamespaceName(c.Namespace, false)) != 0 ||
		len(validation.ValidateServiceAccountName(c.ServiceAccountName, false)) != 0 {
		return nil, rejected(ErrMissingClaims, "sub claim is invalid")
	}

	secret, err := a.getter.GetSecret(ctx, c.Namespace, c.SecretName)
	if err != nil || secret == nil || secret.DeletionTimestamp != nil {
		return nil, rejected(ErrInvalidated, "Token has been invalidated")
	}
	if subtle.ConstantTimeCompare(secret.Data[corev1.ServiceAccountTokenKey], []byte(token)) == 0 {
		return nil, rejected(ErrLegacyTokenMismatch, "Token does not match server's copy")
	}
	acct, err := a.getter.GetServiceAccount(ctx, c.Namespace, c.ServiceAccountName)
	if err == nil && acct == nil {
		err = notFound("serviceaccounts", c.ServiceAccountName)
	}
	if err != nil {
		return nil, err
	}
	if acct.DeletionTimestamp != nil {
		return nil, rejected(ErrServiceAccountDeleted, "ServiceAccount %s/%s has been deleted", c.Namespace, c.ServiceAccountName)
	}
	if string(acct.UID) != c.ServiceAccountUID {
		return nil, rejected(ErrUIDMismatch, "ServiceAccount UID (%s) does not match claim (%s)", acct.UID, c.ServiceAccountUID)
	}
	if secret.Labels[LegacyInvalidSinceLabel] != "" {
		return nil, rejected(ErrLegacyTokenInvalid, "the token in secret %s/%s for service account %s/%s has been marked invalid. "+
			"Use tokens from the TokenRequest API or manually created secret-based tokens, or remove the '%s' label from the secret to temporarily allow use of this token",
			c.Namespace, c.SecretName, c.Namespace, c.ServiceAccountName, LegacyInvalidSinceLabel)
	}
	id := identity{Namespace: c.Namespace, Name: c.ServiceAccountName, UID: c.ServiceAccountUID}
	return &Result{User: id.userInfo(), Audiences: auds}, nil
}

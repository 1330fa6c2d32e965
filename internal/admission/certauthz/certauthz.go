package certauthz

import (
	"context"
	"strings"

	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/portcullis/portcullis/internal/authz"
)

// Allowed reports whether u may verb for signerName: on the signer name
// itself, or else on its domain wildcard.
func Allowed(ctx context.Context, az authz.Authorizer, u user.Info, verb, signerName string) bool {
	domain, _, _ := strings.Cut(signerName, "/")
	for _, name := range []string{signerName, domain + "/*"} {
		// An error counts as no decision; the wildcard is still asked.
		if d, _, _ := az.Authorize(ctx, Attributes(u, verb, name)); d == authorizer.DecisionAllow {
			return true
		}
	}
	return false
}

// Attributes are the authorization attributes of verb on the signer name.
func Attributes(u user.Info, verb, name string) authorizer.AttributesRecord {
	return authorizer.AttributesRecord{
		User:            u,
		Verb:            verb,
		Name:            name,
		APIGroup:        certificatesv1.GroupName,
		APIVersion:      "*",
		Resource:        "signers",
		ResourceRequest: true,
	}
}

package authnconfig

import (
	"errors"
	"fmt"
	"os"
	"sort"

	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"
)

// OIDCFlags are kube-apiserver's --oidc-* flags: one JWT issuer, which
// kube-apiserver turns into an AuthenticationConfiguration as OIDCConfig
// does here.
type OIDCFlags struct {
	IssuerURL      string            // --oidc-issuer-url
	ClientID       string            // --oidc-client-id
	CAFile         string            // --oidc-ca-file
	UsernameClaim  string            // --oidc-username-claim (default sub)
	UsernamePrefix string            // --oidc-username-prefix
	GroupsClaim    string            // --oidc-groups-claim
	GroupsPrefix   string            // --oidc-groups-prefix
	RequiredClaims map[string]string // --oidc-required-claim
	SigningAlgs    []string          // --oidc-signing-algs (default RS256)
	// Set records whether any of the flags was given.
	Set bool
}

// ErrOIDCWithConfigFile: the --oidc-* flags and --authentication-config
// exclude each other (kube-apiserver's words).
var ErrOIDCWithConfigFile = errors.New("authentication-config file and oidc-* flags are mutually exclusive")

// Validate checks the flags together, as kube-apiserver does.
func (o OIDCFlags) Validate() error {
	if o.Set && (o.IssuerURL == "" || o.ClientID == "") {
		return errors.New("oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags are set")
	}
	return nil
}

// Config is the configuration the flags stand for (nil when no issuer is
// given): the username prefixed with "<issuer>#" unless the claim is email
// or a prefix is given ("-" for none), the groups claim with its prefix,
// each required claim a claimValidationRule.
func (o OIDCFlags) Config() (*apiserverv1.AuthenticationConfiguration, error) {
	if o.IssuerURL == "" || o.ClientID == "" {
		return nil, nil
	}
	claim := o.UsernameClaim
	if claim == "" {
		claim = "sub"
	}
	prefix := o.UsernamePrefix
	if prefix == "" && claim != "email" {
		prefix = o.IssuerURL + "#"
	}
	if prefix == "-" {
		prefix = ""
	}
	a := apiserverv1.JWTAuthenticator{
		Issuer: apiserverv1.Issuer{URL: o.IssuerURL, Audiences: []string{o.ClientID}},
		ClaimMappings: apiserverv1.ClaimMappings{
			Username: apiserverv1.PrefixedClaimOrExpression{Claim: claim, Prefix: &prefix},
		},
	}
	if o.GroupsClaim != "" {
		gp := o.GroupsPrefix
		a.ClaimMappings.Groups = apiserverv1.PrefixedClaimOrExpression{Claim: o.GroupsClaim, Prefix: &gp}
	}
	if o.CAFile != "" {
		ca, err := os.ReadFile(o.CAFile)
		if err != nil {
			return nil, fmt.Errorf("--oidc-ca-file: %w", err)
		}
		a.Issuer.CertificateAuthority = string(ca)
	}
	claims := make([]string, 0, len(o.RequiredClaims))
	for c := range o.RequiredClaims {
		claims = append(claims, c)
	}
	sort.Strings(claims)
	for _, c := range claims {
		a.ClaimValidationRules = append(a.ClaimValidationRules, apiserverv1.ClaimValidationRule{Claim: c, RequiredValue: o.RequiredClaims[c]})
	}
	return &apiserverv1.AuthenticationConfiguration{JWT: []apiserverv1.JWTAuthenticator{a}}, nil
}

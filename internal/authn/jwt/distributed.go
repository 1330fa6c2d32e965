package jwt

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// The claims of OpenID Connect Core 1.0 section 5.6.2 that point at
// distributed claims.
const (
	claimNamesKey   = "_claim_names"
	claimSourcesKey = "_claim_sources"
)

// expandDistributed resolves the groups claim when the token carries it
// as a distributed claim, as kube-apiserver does for groups.claim only
// (distributed claims are not visible to CEL expressions).
//
// The endpoint must be https and must answer with a JWT from this same
// issuer, verified with its keys and audiences. kube-apiserver would
// discover and trust whatever issuer that JWT names; restricting it to the
// token's own issuer keeps an issuer from vouching for another.
func (a *Authenticator) expandDistributed(ctx context.Context, c claims) error {
	name := a.c.groups.claim
	if name == "" {
		return nil
	}
	if _, ok := c[name]; ok {
		return nil // an ordinary claim wins
	}
	rawNames, ok := c[claimNamesKey]
	if !ok {
		return nil
	}
	names, ok := rawNames.(map[string]any)
	if !ok {
		return fmt.Errorf("%w: %s is not an object", ErrDistributedClaims, claimNamesKey)
	}
	src, ok := names[name].(string)
	if !ok {
		return nil
	}
	rawSources, ok := c[claimSourcesKey]
	if !ok {
		return fmt.Errorf("%w: no claim sources", ErrDistributedClaims)
	}
	sources, ok := rawSources.(map[string]any)
	if !ok {
		return fmt.Errorf("%w: could not parse claim sources", ErrDistributedClaims)
	}
	source, ok := sources[src].(map[string]any)
	if !ok {
		return fmt.Errorf("%w: %s contained a source %s missing in %s", ErrDistributedClaims, claimNamesKey, src, claimSourcesKey)
	}
	endpoint, _ := source["endpoint"].(string)
	if endpoint == "" {
		return nil // an aggregated claim (a JWT inline) is not supported
	}
	if !strings.HasPrefix(endpoint, "https://") {
		return fmt.Errorf("%w: endpoint for claim %q is not https", ErrDistributedClaims, name)
	}
	accessToken, _ := source["access_token"].(string)

	jwt, err := a.getClaimJWT(ctx, endpoint, accessToken)
	if err != nil {
		return fmt.Errorf("%w: while getting distributed claim %q: %w", ErrDistributedClaims, name, err)
	}
	if len(jwt) > a.opts.MaxTokenSize {
		return fmt.Errorf("%w: distributed claim JWT too large", ErrDistributedClaims)
	}
	if iss, ok := untrustedIssuer(jwt); !ok || iss != a.c.issuer {
		return fmt.Errorf("%w: distributed claim JWT for %q is not from issuer %q", ErrDistributedClaims, name, a.c.issuer)
	}
	payload, err := a.verifySignature(ctx, jwt)
	if err != nil {
		return fmt.Errorf("%w: verify distributed claim token: %w", ErrDistributedClaims, err)
	}
	dc, err := decodeClaims(payload)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrDistributedClaims, err)
	}
	if err := a.checkStandardClaims(dc); err != nil {
		return fmt.Errorf("%w: verify distributed claim token: %w", ErrDistributedClaims, err)
	}
	value, ok := dc[name]
	if !ok {
		return fmt.Errorf("%w: jwt returned by distributed claim endpoint did not contain claim %q", ErrDistributedClaims, name)
	}
	c[name] = value
	return nil
}

func (a *Authenticator) getClaimJWT(ctx context.Context, url, accessToken string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, a.opts.FetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	if accessToken != "" {
		req.Header.Set("Authorization", "Bearer "+accessToken)
	}
	resp, err := a.fetch.client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return "", fmt.Errorf("error while getting distributed claim JWT: %s", resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(a.opts.MaxTokenSize)+1))
	if err != nil {
		return "", fmt.Errorf("could not read distributed claim response: %w", err)
	}
	return strings.TrimSpace(string(body)), nil
}

// Package jwt authenticates bearer JWTs from the issuers of an
// AuthenticationConfiguration (apiserver.config.k8s.io, jwt[]), as
// kube-apiserver's structured authentication does.
//
// # Pieces
//
// Compile validates one JWTAuthenticator with kube-apiserver's rules and
// messages (field paths included) and compiles its CEL expressions: claim
// validation rules and claim mappings see `claims`, user validation rules
// see `user`, each in internal/cel's base extended with that one
// variable, once per process. Nothing is compiled per request.
//
// New makes an Authenticator from a Compiled configuration; its Run
// fetches the OpenID discovery document (from the issuer URL or
// discoveryURL) and the JWKS over TLS, retrying in the background while
// the issuer is down, and refreshes the keys periodically and whenever a
// token names an unknown key (spaced, so made-up key IDs cannot flood the
// issuer). Every request to the issuer has a timeout: a slow issuer makes
// tokens fail, never hang.
//
// A Set routes each token to the authenticator of its issuer.
//
// # Checks, in order
//
// Size (before any parsing); compact JWS shape; an allowed asymmetric
// algorithm (RS, PS and ES families: "none" and HMAC are refused); the
// signature; iss; aud (any configured audience); exp (required, no
// leeway), nbf (one minute of leeway; iat is not checked, as in
// kube-apiserver); distributed groups claim;
// claimValidationRules (claim/requiredValue, then expressions); the
// mappings (username, groups, uid, extra, with kube-apiserver's rules:
// "", [] and null mean absent, empty strings are dropped from lists, an
// email username needs email_verified true when present);
// userValidationRules.
//
// A token whose issuer is not configured is not recognised (ok false, no
// error), so the next authenticator may try it. Tokens are never logged.
package jwt

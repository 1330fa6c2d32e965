// Package oidctest runs a real OpenID Connect issuer for tests: an HTTPS
// server on 127.0.0.1 that serves a discovery document and a JWKS, signs
// tokens with RSA and ECDSA keys, rotates keys, and can be made slow or
// failing on any path.
//
// Use it wherever a test needs tokens from an external identity provider:
//
//	k, _ := oidctest.NewRSAKey("k1")
//	iss := oidctest.New(t, k)             // https://127.0.0.1:port, closed with the test
//	// certificateAuthority: iss.CAPEM, url: iss.URL
//	tok, _ := k.Sign(map[string]any{"iss": iss.URL, "aud": "kubernetes", "sub": "jane", "exp": ...})
//	iss.SetKeys(k2)                       // rotate
//	iss.Fail(oidctest.JWKSPath, 503)      // or Delay(path, d)
package oidctest

package serviceaccount

import (
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDiscovery(t *testing.T) {
	rsaKey, _, ecKey, _ := testKeys(t)
	keys, err := NewKeys(rsaKey, ecKey.Public())
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewDiscovery("https://issuer.example/", keys)
	if err != nil {
		t.Fatal(err)
	}
	get := func(path string) (string, map[string]any) {
		t.Helper()
		rec := httptest.NewRecorder()
		if !d.Serve(rec, httptest.NewRequest("GET", path, nil)) {
			t.Fatalf("%s not served", path)
		}
		var doc map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return rec.Header().Get("Content-Type"), doc
	}
	ct, doc := get(DiscoveryPath)
	want := map[string]any{
		"issuer":                                "https://issuer.example/",
		"jwks_uri":                              "https://issuer.example/openid/v1/jwks",
		"response_types_supported":              []any{"id_token"},
		"subject_types_supported":               []any{"public"},
		"id_token_signing_alg_values_supported": []any{"ES256", "RS256"},
	}
	if ct != "application/json" {
		t.Errorf("content type %q", ct)
	}
	if diff := cmp.Diff(want, doc); diff != "" {
		t.Errorf("discovery document (-want +got):\n%s", diff)
	}
	ct, jwks := get(JWKSPath)
	if ct != "application/jwk-set+json" || len(jwks["keys"].([]any)) != 2 {
		t.Errorf("jwks %s: %v", ct, jwks)
	}
	if d.Serve(httptest.NewRecorder(), httptest.NewRequest("GET", "/openid/v1/other", nil)) {
		t.Error("served a path that is not discovery")
	}
}

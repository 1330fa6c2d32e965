package authzconfig

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse: any file content parses to a usable Config or to ErrDecode
// or ErrInvalid, never a panic.
func FuzzParse(f *testing.F) {
	inputs, _ := filepath.Glob(filepath.Join("testdata", "parse", "*.*"))
	for _, in := range inputs {
		if data, err := os.ReadFile(in); err == nil && filepath.Ext(in) != ".golden" {
			f.Add(data)
		}
	}
	f.Add([]byte(configYAML(nodeEntry, rbacEntry)))
	f.Add([]byte(`{"apiVersion":"apiserver.config.k8s.io/v1","kind":"AuthorizationConfiguration","authorizers":[{"type":"Webhook","name":"w","webhook":{"matchConditions":[{"expression":"request.user == 'a'"}]}}]}`))
	f.Add([]byte("apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers: &a [*a]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse(data)
		if err != nil {
			if !errors.Is(err, ErrDecode) && !errors.Is(err, ErrInvalid) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		if len(cfg.Authorizers()) == 0 {
			t.Fatal("a valid configuration without authorizers")
		}
		for _, a := range cfg.Authorizers() {
			if a.Type == TypeWebhook && (a.Webhook == nil || a.Webhook.CacheAuthorizedRequests == nil) {
				t.Fatalf("webhook %q not defaulted", a.Name)
			}
		}
	})
}

package jwt

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"
)

// BenchmarkCompile is the cost of compiling one JWT authenticator with
// expressions when the authentication configuration is loaded.
func BenchmarkCompile(b *testing.B) {
	cfg := benchConfig()
	cfg.ClaimValidationRules = []apiserverv1.ClaimValidationRule{{Expression: "claims.tenant != ''", Message: "no tenant"}}
	cfg.UserValidationRules = []apiserverv1.UserValidationRule{{Expression: "!user.username.startsWith('system:')", Message: "reserved"}}
	b.ReportAllocs()
	for b.Loop() {
		if _, errs := Compile(cfg, field.NewPath("jwt"), nil); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}

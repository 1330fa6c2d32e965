package manifest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkLoad1000Policies loads and validates a directory of 1,000
// static ValidatingAdmissionPolicies, each with its binding, one file each.
func BenchmarkLoad1000Policies(b *testing.B) {
	dir := b.TempDir()
	for i := 0; i < 1000; i++ {
		doc := fmt.Sprintf(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: p%04d.static.k8s.io}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  validations:
  - expression: "object.metadata.name != 'blocked-%d'"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: b%04d.static.k8s.io}
spec: {policyName: p%04d.static.k8s.io, validationActions: [Deny]}
`, i, i, i, i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("p%04d.yaml", i)), []byte(doc), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		set, err := Load(dir, ValidatingAdmissionPolicy, nil)
		if err != nil {
			b.Fatal(err)
		}
		if len(set.Objects) != 2000 {
			b.Fatalf("%d objects", len(set.Objects))
		}
	}
}

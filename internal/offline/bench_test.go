package offline

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/portcullis/portcullis/internal/server"
)

// benchState is a namespace labelled for 3 of 100 bindings, 100
// ValidatingAdmissionPolicies (half of them on configmaps, half on
// deployments, which the requests never touch), a binding of each (the
// configmap ones selecting namespaces by a label of their own), and
// alice's RoleBinding: the shape of a cluster with many policies of
// which a request meets few.
func benchState(tb testing.TB) []*unstructured.Unstructured {
	tb.Helper()
	var b strings.Builder
	b.WriteString(`apiVersion: v1
kind: Namespace
metadata:
  name: bench
  labels: {policy-0: "on", policy-2: "on", policy-4: "on"}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: alice-edit, namespace: bench}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: edit}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: alice}
`)
	for i := range 100 {
		group, resource := "", "configmaps"
		if i%2 == 1 {
			group, resource = "apps", "deployments"
		}
		fmt.Fprintf(&b, `---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: policy-%[1]d}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: [%[2]q]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: [%[3]q]
  validations:
  - expression: "!has(object.metadata.labels) || !('deny-%[1]d' in object.metadata.labels)"
    messageExpression: "'label deny-%[1]d on ' + object.metadata.name"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: policy-%[1]d}
spec:
  policyName: policy-%[1]d
  validationActions: [Deny]
  matchResources:
    namespaceSelector:
      matchLabels: {policy-%[1]d: "on"}
`, i, group, resource)
	}
	return objects(tb, b.String())
}

// BenchmarkAdmit100Policies is one configmap create by alice per
// operation through the 100 policies of benchState, 3 of which match:
// ns/op is the cost of one request of `portcullis admit`. Every 10th
// request is denied by one of the matching policies.
func BenchmarkAdmit100Policies(b *testing.B) {
	r := startRunner(b, benchState(b))
	alice := &User{Name: "alice"}
	reqs := make([]Request, 10)
	for i := range reqs {
		labels := map[string]any{"team": "a"}
		if i == 9 {
			labels["deny-2"] = "yes"
		}
		obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"namespace": "bench", "labels": labels}, "data": map[string]any{"k": "v"}}}
		reqs[i] = Request{User: alice, Object: obj}
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		req := reqs[i%len(reqs)]
		req.Object = req.Object.DeepCopy()
		req.Object.SetName(fmt.Sprintf("cm-%d", i))
		res, err := r.Run(ctx, req)
		if err != nil {
			b.Fatal(err)
		}
		if want := i%len(reqs) != 9; res.Allowed != want {
			b.Fatalf("request %d: allowed %v, want %v: %+v", i, res.Allowed, want, res.Status)
		}
	}
}

// BenchmarkStart is the start of a run with the state of
// BenchmarkAdmit100Policies: what `portcullis admit` costs before its
// first request.
func BenchmarkStart(b *testing.B) {
	state := benchState(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		r, err := Start(ctx, Setup{State: state, Config: server.Default()})
		if err != nil {
			b.Fatal(err)
		}
		r.Close()
	}
}

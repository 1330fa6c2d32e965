package rest

import (
	"context"
	"sync"
	"testing"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/objects/objectstest"
)

// A request on a namespace is in that namespace for admission, its
// creation included, as kube-apiserver's attributes (and so a webhook's
// request.namespace) have it.
func TestNamespaceAttributes(t *testing.T) {
	var mu sync.Mutex
	seen := map[admission.Operation]string{}
	record := admission.ValidatorFunc(func(_ context.Context, a *admission.Attributes) error {
		if a.Resource.Resource == "namespaces" {
			mu.Lock()
			seen[a.Operation] = a.Namespace + "/" + a.Name
			mu.Unlock()
		}
		return nil
	})
	ts := newTestServerWith(t, objectstest.New(t), &admission.Chain{Validators: []admission.Validator{record}})
	if r := ts.do("POST", "/api/v1/namespaces", mediaJSON, `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team"}}`); r.code != 201 {
		t.Fatalf("create: %d %s", r.code, r.body)
	}
	if r := ts.do("PATCH", "/api/v1/namespaces/team", mediaMergePatch, `{"metadata":{"labels":{"a":"b"}}}`); r.code != 200 {
		t.Fatalf("patch: %d %s", r.code, r.body)
	}
	for _, op := range []admission.Operation{admission.Create, admission.Update} {
		if got := seen[op]; got != "team/team" {
			t.Errorf("%s: namespace/name %q, want team/team", op, got)
		}
	}
}

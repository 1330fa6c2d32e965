package objects_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/registry"
	"github.com/portcullis/portcullis/internal/storage"
)

// noSchema is a schema that accepts everything as it is.
type noSchema struct{ registry.CustomSchema }

func (noSchema) CoerceStored(*unstructured.Unstructured) error { return nil }
func (noSchema) Default(map[string]any)                        {}

var errHookDown = errors.New(`conversion webhook for example.com/v1, Kind=Gadget failed: Post "https://127.0.0.1:1/convert?timeout=30s": connection refused`)

// gadgets is a custom resource served in v2 and stored in v1, whose
// conversion fails for the objects named in fail and counts its calls.
func gadgets(fail map[string]bool, calls *int) *registry.Resource {
	to := func(obj *unstructured.Unstructured, version string) error {
		if fail[obj.GetName()] {
			return errHookDown
		}
		obj.SetAPIVersion("example.com/" + version)
		return nil
	}
	gv := schema.GroupVersion{Group: "example.com", Version: "v2"}
	return &registry.Resource{
		GVR: gv.WithResource("gadgets"), Kind: "Gadget", Namespaced: true,
		Custom: &registry.Custom{
			StorageVersion: "v1", Schema: noSchema{},
			Convert: func(_ context.Context, obj *unstructured.Unstructured, version string) error {
				*calls++
				return to(obj, version)
			},
			ConvertList: func(_ context.Context, objs []*unstructured.Unstructured, version string) []error {
				*calls++
				errs := make([]error, len(objs))
				failed := false
				for i, o := range objs {
					if errs[i] = to(o, version); errs[i] != nil {
						failed = true
					}
				}
				if !failed {
					return nil
				}
				return errs
			},
		},
	}
}

func storedGadget(name string, rev int64) storage.KeyValue {
	return storage.KeyValue{
		Key:         "/registry/example.com/gadgets/ns/" + name,
		Value:       []byte(`{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"` + name + `","namespace":"ns"}}`),
		ModRevision: rev,
	}
}

// TestCustomConversionErrors: a custom resource its conversion cannot read
// fails as kube-apiserver's storage says it: a corrupt object for a read,
// StorageReadError for a list (one review for the list), and the
// conversion's error alone, 500, for a write.
func TestCustomConversionErrors(t *testing.T) {
	o, _ := newObjects(t)
	calls := 0
	res := gadgets(map[string]bool{"b": true, "c": true}, &calls)

	_, err := o.DecodeContext(t.Context(), res, storedGadget("b", 7))
	want := "StorageError: corrupt object, Code: 7, Key: /example.com/gadgets/ns/b, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=7: " + errHookDown.Error()
	if err == nil || err.Error() != want || !errors.Is(err, errHookDown) {
		t.Errorf("decode: %v, want %s", err, want)
	}

	calls = 0
	objs, err := o.DecodeList(t.Context(), res, []storage.KeyValue{storedGadget("a", 5)})
	if err != nil || len(objs) != 1 || objs[0].GetObjectKind().GroupVersionKind().Version != "v2" || calls != 1 {
		t.Fatalf("list of a convertible object: %v, %v, %d calls", objs, err, calls)
	}

	calls = 0
	_, err = o.DecodeList(t.Context(), res, []storage.KeyValue{storedGadget("a", 5), storedGadget("b", 6), storedGadget("c", 7)})
	var st apierrors.APIStatus
	if !errors.As(err, &st) || calls != 1 {
		t.Fatalf("list: %v (%d calls), want an API error after one call", err, calls)
	}
	s := st.Status()
	entry := func(name string, rev int) string {
		return fmt.Sprintf("StorageError: corrupt object, Code: 7, Key: /registry/example.com/gadgets/ns/%s, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=%d: %s", name, rev, errHookDown)
	}
	if s.Code != http.StatusInternalServerError || s.Reason != metav1.StatusReasonStoreReadError ||
		s.Message != "failed to read one or more gadgets.example.com from the storage: "+entry("b", 6)+" (and 1 more)" {
		t.Errorf("list status %d %s %q", s.Code, s.Reason, s.Message)
	}
	if d := s.Details; d == nil || d.Name != "list" || d.Kind != "gadgets" || len(d.Causes) != 2 ||
		d.Causes[1].Field != "/registry/example.com/gadgets/ns/c" || d.Causes[1].Message != entry("c", 7) {
		t.Errorf("list details %+v", s.Details)
	}

	obj := &unstructured.Unstructured{}
	obj.SetName("c")
	_, err = o.EncodeContext(t.Context(), res, obj)
	if !errors.As(err, &st) || st.Status().Code != http.StatusInternalServerError || st.Status().Reason != "" || st.Status().Message != errHookDown.Error() {
		t.Errorf("encode: %v", err)
	}
}

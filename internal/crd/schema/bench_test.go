package schema

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The benchmarks use testdata/widgets.yaml (about thirty fields, five
// x-kubernetes-validations rules, list types, an embedded resource) and
// validWidget, which sets every field; reproduce with
//
//	go test -run XXX -bench . -benchmem ./internal/crd/schema/

// BenchmarkCompile is the cost of starting to serve one version.
func BenchmarkCompile(b *testing.B) {
	crd := readCRD(b, "widgets.yaml")
	widgetVersion(b) // the CEL base and OpenAPI definitions, built once per process
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile(crd, "v1"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecode is the schema part of decoding a request body: Coerce
// and Default.
func BenchmarkDecode(b *testing.B) {
	v := widgetVersion(b)
	in := object(b, validWidget)
	b.ReportAllocs()
	for b.Loop() {
		obj := in.DeepCopy()
		if _, err := v.Coerce(obj); err != nil {
			b.Fatal(err)
		}
		v.Default(obj.Object)
	}
}

// BenchmarkValidateCreate validates a valid widget on create, every
// rule included.
func BenchmarkValidateCreate(b *testing.B) {
	v := widgetVersion(b)
	obj := object(b, validWidget)
	ctx := context.Background()
	if errs := v.ValidateCreate(ctx, obj); len(errs) > 0 {
		b.Fatal(errs)
	}
	b.ReportAllocs()
	for b.Loop() {
		v.ValidateCreate(ctx, obj)
	}
}

// BenchmarkValidateUpdate validates an update of one field, with
// transition rules and ratcheting.
func BenchmarkValidateUpdate(b *testing.B) {
	v := widgetVersion(b)
	old := object(b, validWidget)
	obj := old.DeepCopy()
	if err := unstructured.SetNestedField(obj.Object, int64(4), "spec", "replicas"); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if errs, _ := v.ValidateUpdate(ctx, obj, old); len(errs) > 0 {
		b.Fatal(errs)
	}
	b.ReportAllocs()
	for b.Loop() {
		v.ValidateUpdate(ctx, obj, old)
	}
}

// BenchmarkTable renders a list of 100 widgets.
func BenchmarkTable(b *testing.B) {
	v := widgetVersion(b)
	list := &unstructured.UnstructuredList{}
	w := object(b, validWidget)
	for range 100 {
		list.Items = append(list.Items, *w.DeepCopy())
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := v.Table(list, metav1.TableOptions{}, now); err != nil {
			b.Fatal(err)
		}
	}
}

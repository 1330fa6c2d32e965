package printers

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestTableErrors(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}
	for _, tc := range []struct {
		name string
		obj  runtime.Object
		opts metav1.TableOptions
		want error
	}{
		{name: "nil", obj: nil, want: ErrNotTable},
		{name: "typed nil", obj: (*corev1.Pod)(nil), want: ErrNotTable},
		{name: "include policy", obj: cm, opts: metav1.TableOptions{IncludeObject: "Everything"}, want: ErrIncludeObject},
		{name: "no metadata", obj: &runtime.Unknown{Raw: []byte("{}")}, want: ErrNotTable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			table, err := Table(tc.obj, tc.opts, now)
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, %v; want %v", table, err, tc.want)
			}
		})
	}
}

func TestPrinterRejectsOtherTypes(t *testing.T) {
	p := registry[reflect.TypeFor[*corev1.Pod]()]
	if _, err := p.row(&corev1.ConfigMap{}, now); !errors.Is(err, ErrUnexpectedType) {
		t.Fatalf("got %v, want ErrUnexpectedType", err)
	}
}

// TestIncludeObject checks what each policy puts in the rows, and that the
// caller's object is left alone.
func TestIncludeObject(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", Labels: map[string]string{"app": "web"}}}
	for _, tc := range []struct {
		policy metav1.IncludeObjectPolicy
		want   runtime.Object
	}{
		{policy: metav1.IncludeNone, want: nil},
		{policy: "", want: &metav1.PartialObjectMetadata{
			TypeMeta:   metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadata"},
			ObjectMeta: pod.ObjectMeta,
		}},
		{policy: metav1.IncludeMetadata, want: &metav1.PartialObjectMetadata{
			TypeMeta:   metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadata"},
			ObjectMeta: pod.ObjectMeta,
		}},
		{policy: metav1.IncludeObject, want: &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: pod.ObjectMeta}},
	} {
		t.Run(string(tc.policy), func(t *testing.T) {
			table, err := Table(&corev1.PodList{Items: []corev1.Pod{*pod}}, metav1.TableOptions{IncludeObject: tc.policy}, now)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, table.Rows[0].Object.Object); diff != "" {
				t.Errorf("row object (-want +got):\n%s", diff)
			}
			if !pod.GetObjectKind().GroupVersionKind().Empty() {
				t.Errorf("the caller's object was given a kind: %v", pod.GetObjectKind().GroupVersionKind())
			}
		})
	}
}

// TestColumnsAreCopies makes sure a caller editing a table cannot change the
// next one.
func TestColumnsAreCopies(t *testing.T) {
	first, err := Table(&corev1.Namespace{}, metav1.TableOptions{}, now)
	if err != nil {
		t.Fatal(err)
	}
	first.ColumnDefinitions[0].Name = "Changed"
	second, err := Table(&corev1.Namespace{}, metav1.TableOptions{}, now)
	if err != nil {
		t.Fatal(err)
	}
	if got := second.ColumnDefinitions[0].Name; got != "Name" {
		t.Fatalf("first column is %q", got)
	}
}

// TestMixedList covers lists without a single item type (metav1.List):
// they get the default table.
func TestMixedList(t *testing.T) {
	list := &metav1.List{Items: []runtime.RawExtension{
		{Object: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", CreationTimestamp: ago(time.Hour)}}},
		{Object: &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", CreationTimestamp: ago(time.Minute)}}},
	}}
	table, err := Table(list, metav1.TableOptions{IncludeObject: metav1.IncludeNone}, now)
	if err != nil {
		t.Fatal(err)
	}
	var got [][]any
	for _, r := range table.Rows {
		got = append(got, r.Cells)
	}
	want := [][]any{{"p", "2025-06-01T11:00:00Z"}, {"c", "2025-06-01T11:59:00Z"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
}

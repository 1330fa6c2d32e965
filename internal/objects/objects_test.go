package objects_test

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/objects"
	"github.com/portcullis/portcullis/internal/objects/objectstest"
	"github.com/portcullis/portcullis/internal/storage"
)

func newObjects(t *testing.T) (*objects.Objects, storage.Store) {
	t.Helper()
	o := objectstest.New(t)
	return o, o.Store()
}

var configmaps = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

func TestRoundTripAndReads(t *testing.T) {
	o, store := newObjects(t)
	ctx := context.Background()
	res, _ := o.Lookup(configmaps)
	put := func(ns, name string, l map[string]string) int64 {
		t.Helper()
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: l, ResourceVersion: "999"}, Data: map[string]string{"k": name}}
		data, err := o.Encode(res, cm)
		if err != nil {
			t.Fatal(err)
		}
		if cm.ResourceVersion != "999" {
			t.Errorf("Encode changed the caller's resourceVersion to %q", cm.ResourceVersion)
		}
		kv, err := store.Create(ctx, res.Key(ns, name), data)
		if err != nil {
			t.Fatal(err)
		}
		return kv.ModRevision
	}
	rev := put("a", "one", map[string]string{"tier": "web"})
	put("a", "two", nil)
	put("b", "three", map[string]string{"tier": "web"})

	obj, err := o.Get(ctx, configmaps, "a", "one")
	if err != nil {
		t.Fatal(err)
	}
	cm := obj.(*corev1.ConfigMap)
	if cm.Data["k"] != "one" || cm.ResourceVersion != strconv.FormatInt(rev, 10) || cm.Kind != "ConfigMap" || cm.APIVersion != "v1" {
		t.Errorf("decoded %+v (revision %d)", cm, rev)
	}
	if _, err := o.Get(ctx, configmaps, "a", "missing"); !apierrors.IsNotFound(err) {
		t.Errorf("missing object: %v, want NotFound", err)
	}
	if _, err := o.Get(ctx, schema.GroupVersionResource{Version: "v1", Resource: "nothings"}, "", "x"); !apierrors.IsNotFound(err) {
		t.Errorf("unserved resource: %v, want NotFound", err)
	}

	for _, tc := range []struct {
		name     string
		ns       string
		selector labels.Selector
		want     int
	}{
		{name: "all namespaces", want: 3},
		{name: "one namespace", ns: "a", want: 2},
		{name: "selector", selector: labels.SelectorFromSet(labels.Set{"tier": "web"}), want: 2},
		{name: "selector in a namespace", ns: "b", selector: labels.SelectorFromSet(labels.Set{"tier": "web"}), want: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := o.List(ctx, configmaps, tc.ns, tc.selector)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tc.want {
				t.Errorf("listed %d objects, want %d", len(got), tc.want)
			}
		})
	}
	ns, err := o.GetNamespace(ctx, "nope")
	if !apierrors.IsNotFound(err) || ns != nil {
		t.Errorf("GetNamespace of a missing namespace = %v, %v", ns, err)
	}
}

func TestDecodeCorrupt(t *testing.T) {
	o, _ := newObjects(t)
	res, _ := o.Lookup(configmaps)
	if _, err := o.Decode(res, storage.KeyValue{Key: "/registry/configmaps/a/x", Value: []byte("garbage")}); err == nil {
		t.Error("garbage decoded")
	}
}

func TestStorageError(t *testing.T) {
	gr := schema.GroupResource{Resource: "configmaps"}
	for _, tc := range []struct {
		err  error
		code int32
	}{
		{storage.ErrNotFound, http.StatusNotFound},
		{storage.ErrKeyExists, http.StatusConflict},
		{storage.ErrConflict, http.StatusConflict},
		{storage.ErrCompacted, http.StatusGone},
		{context.DeadlineExceeded, http.StatusGatewayTimeout},
		{errors.New("disk on fire"), http.StatusInternalServerError},
		{&storage.CorruptListError{Errs: []*storage.CorruptError{{Key: "/registry/configmaps/a/x", Err: errors.New("bad")}}}, http.StatusInternalServerError},
	} {
		var status apierrors.APIStatus
		if !errors.As(objects.StorageError(tc.err, gr, "x"), &status) || status.Status().Code != tc.code {
			t.Errorf("StorageError(%v) = %v, want code %d", tc.err, objects.StorageError(tc.err, gr, "x"), tc.code)
		}
	}
	var status apierrors.APIStatus
	errors.As(objects.StorageError(&storage.CorruptListError{Errs: []*storage.CorruptError{{Key: "k", Err: errors.New("bad")}}}, gr, ""), &status)
	if s := status.Status(); s.Reason != metav1.StatusReasonStoreReadError || len(s.Details.Causes) != 1 || s.Details.Causes[0].Field != "k" {
		t.Errorf("corrupt list status %+v", s)
	}
}

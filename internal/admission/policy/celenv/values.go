package celenv

import (
	"maps"
	"reflect"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/cel/common"

	"github.com/portcullis/portcullis/internal/admission"
)

// ObjectVal returns obj as a CEL value (null for nil). A typed object that
// lacks apiVersion and kind gets them from gvk, on a shallow copy: CEL
// expressions can always read them at the root, and admission must not
// change the object it judges.
func ObjectVal(obj runtime.Object, gvk schema.GroupVersionKind) ref.Val {
	if isNil(obj) {
		return types.NullValue
	}
	if u, ok := obj.(*unstructured.Unstructured); ok {
		content := u.Object
		if content == nil {
			return types.NullValue
		}
		if !gvk.Empty() && u.GetKind() == "" && u.GetAPIVersion() == "" {
			content = maps.Clone(content)
			content["apiVersion"], content["kind"] = gvk.GroupVersion().String(), gvk.Kind
		}
		return types.DefaultTypeAdapter.NativeToValue(content)
	}
	return common.SchemalessTypedToVal(withKind(obj, gvk))
}

// withKind returns obj, or a shallow copy of it with gvk set when obj has
// no kind of its own.
func withKind(obj runtime.Object, gvk schema.GroupVersionKind) runtime.Object {
	if gvk.Empty() || !obj.GetObjectKind().GroupVersionKind().Empty() {
		return obj
	}
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return obj
	}
	cp := reflect.New(v.Elem().Type())
	cp.Elem().Set(v.Elem())
	out, ok := cp.Interface().(runtime.Object)
	if !ok {
		return obj
	}
	out.GetObjectKind().SetGroupVersionKind(gvk)
	return out
}

func isNil(obj runtime.Object) bool {
	if obj == nil {
		return true
	}
	v := reflect.ValueOf(obj)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// optionsGroupVersion is the group and version of the Create, Update,
// Patch and DeleteOptions kube-apiserver passes to admission.
var optionsGroupVersion = metav1.SchemeGroupVersion

// RequestVal returns the request variable: the AdmissionRequest of a,
// with kind and resource as matched by the policy and requestKind,
// requestResource and requestSubResource as the client asked.
func RequestVal(a *admission.Attributes, resource schema.GroupVersionResource, kind schema.GroupVersionKind) ref.Val {
	return common.SchemalessTypedToVal(NewAdmissionRequest(a, resource, kind))
}

// NewAdmissionRequest builds the AdmissionRequest of a as kube-apiserver
// gives it to admission policies: without uid, object and oldObject.
func NewAdmissionRequest(a *admission.Attributes, resource schema.GroupVersionResource, kind schema.GroupVersionKind) *admissionv1.AdmissionRequest {
	reqKind, reqResource, reqSub := a.RequestKind, a.RequestResource, a.RequestSubResource
	if reqKind.Empty() && reqResource.Empty() {
		reqKind, reqResource, reqSub = a.Kind, a.Resource, a.Subresource
	}
	var userInfo authenticationv1.UserInfo
	if u := a.UserInfo; u != nil {
		userInfo = authenticationv1.UserInfo{
			Username: u.GetName(),
			UID:      u.GetUID(),
			Groups:   u.GetGroups(),
			Extra:    map[string]authenticationv1.ExtraValue{},
		}
		for k, v := range u.GetExtra() {
			userInfo.Extra[k] = v
		}
	}
	dryRun := a.DryRun
	var options runtime.Object
	if !isNil(a.Options) {
		options = a.Options
		if kind := reflect.TypeOf(options).Elem().Name(); kind != "" {
			options = withKind(options, optionsGroupVersion.WithKind(kind))
		}
	}
	return &admissionv1.AdmissionRequest{
		Kind:               metav1.GroupVersionKind(kind),
		Resource:           metav1.GroupVersionResource(resource),
		SubResource:        a.Subresource,
		RequestKind:        &metav1.GroupVersionKind{Group: reqKind.Group, Version: reqKind.Version, Kind: reqKind.Kind},
		RequestResource:    &metav1.GroupVersionResource{Group: reqResource.Group, Version: reqResource.Version, Resource: reqResource.Resource},
		RequestSubResource: reqSub,
		Name:               a.Name,
		Namespace:          a.Namespace,
		Operation:          admissionv1.Operation(a.Operation),
		UserInfo:           userInfo,
		DryRun:             &dryRun,
		Options:            runtime.RawExtension{Object: options},
	}
}

// NamespaceVal returns namespaceObject: the namespace with only the
// metadata kube-apiserver exposes (null for nil).
func NamespaceVal(ns *corev1.Namespace) ref.Val {
	if ns == nil {
		return types.NullValue
	}
	return common.SchemalessTypedToVal(&corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{
			Name:                       ns.Name,
			GenerateName:               ns.GenerateName,
			Namespace:                  ns.Namespace,
			UID:                        ns.UID,
			ResourceVersion:            ns.ResourceVersion,
			Generation:                 ns.Generation,
			CreationTimestamp:          ns.CreationTimestamp,
			DeletionTimestamp:          ns.DeletionTimestamp,
			DeletionGracePeriodSeconds: ns.DeletionGracePeriodSeconds,
			Labels:                     ns.Labels,
			Annotations:                ns.Annotations,
			Finalizers:                 ns.Finalizers,
		},
		Spec:   ns.Spec,
		Status: ns.Status,
	})
}

// FullNamespaceVal returns the namespace with all its metadata, as
// kube-apiserver binds namespaceObject for audit annotation expressions.
func FullNamespaceVal(ns *corev1.Namespace) ref.Val {
	if ns == nil {
		return types.NullValue
	}
	return common.SchemalessTypedToVal(ns)
}

// ParamsVal returns a param object as params; a typed object without
// apiVersion and kind gets those of the paramKind.
func ParamsVal(obj runtime.Object, gvk schema.GroupVersionKind) ref.Val {
	return ObjectVal(obj, gvk)
}

package printers

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// tableCases are about the table around the cells: single objects, list
// metadata, headers and the objects in the rows.
func tableCases() []goldenCase {
	labeled := func() *corev1.ConfigMap {
		return &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{
				Name: "settings", Namespace: "default", UID: "0b6e9a52-0000-4000-8000-000000000001", ResourceVersion: "11",
				CreationTimestamp: ago(time.Hour), Labels: map[string]string{"app": "web"},
			},
			Data: map[string]string{"key": "value"},
		}
	}
	return []goldenCase{
		{name: "single-object", obj: labeled()},
		{name: "include-metadata", obj: labeled(), opts: metav1.TableOptions{IncludeObject: metav1.IncludeMetadata}},
		{name: "include-object", obj: &corev1.ConfigMapList{Items: []corev1.ConfigMap{*labeled()}}, opts: metav1.TableOptions{IncludeObject: metav1.IncludeObject}},
		{name: "no-headers", obj: labeled(), opts: metav1.TableOptions{NoHeaders: true}},
		{name: "empty-list", obj: &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "99"}}},
		{name: "list-continue", obj: &rbacv1.RoleList{
			ListMeta: metav1.ListMeta{ResourceVersion: "100", Continue: "token", RemainingItemCount: ptr(int64(5))},
			Items:    []rbacv1.Role{{ObjectMeta: objectMeta("a", time.Hour)}},
		}},
		{name: "default-single", obj: &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "view", ResourceVersion: "3", CreationTimestamp: metav1.NewTime(time.Date(2024, 2, 29, 23, 30, 0, 0, time.FixedZone("x", 3600)))}}},
		{name: "unstructured", obj: &unstructured.UnstructuredList{
			Object: map[string]any{"apiVersion": "example.com/v1", "kind": "WidgetList", "metadata": map[string]any{"resourceVersion": "8"}},
			Items: []unstructured.Unstructured{{Object: map[string]any{
				"apiVersion": "example.com/v1", "kind": "Widget",
				"metadata": map[string]any{"name": "w", "namespace": "default", "creationTimestamp": "2025-05-01T00:00:00Z"},
			}}},
		}, opts: metav1.TableOptions{IncludeObject: metav1.IncludeMetadata}},
	}
}

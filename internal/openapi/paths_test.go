package openapi

import (
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

func findOp(t *testing.T, d *Documents, path, method string) operation {
	t.Helper()
	item := d.paths[path]
	if item == nil {
		t.Fatalf("no path %s", path)
	}
	for _, op := range item.Ops {
		if op.Method == method {
			return op
		}
	}
	t.Fatalf("no %s on %s", method, path)
	return operation{}
}

func paramNames(ps []param) []string {
	var names []string
	for _, p := range ps {
		names = append(names, p.Name)
	}
	return names
}

func TestOperations(t *testing.T) {
	d := newTestDocuments(t)
	pod := &gvk{Version: "v1", Kind: "Pod"}
	tests := []struct {
		path, method, id, action string
		gvk                      *gvk
		params                   []string
		body                     string
		consumes                 []string
		okRef                    string
	}{
		{"/api/v1/namespaces/{namespace}/pods", "get", "listCoreV1NamespacedPod", "list", pod,
			[]string{"allowWatchBookmarks", "continue", "fieldSelector", "labelSelector", "limit", "resourceVersion", "resourceVersionMatch", "sendInitialEvents", "shardSelector", "timeoutSeconds", "watch"}, "", nil, "io.k8s.api.core.v1.PodList"},
		{"/api/v1/namespaces/{namespace}/pods", "post", "createCoreV1NamespacedPod", "post", pod,
			[]string{"dryRun", "fieldManager", "fieldValidation"}, "io.k8s.api.core.v1.Pod", nil, "io.k8s.api.core.v1.Pod"},
		{"/api/v1/namespaces/{namespace}/pods", "delete", "deleteCoreV1CollectionNamespacedPod", "deletecollection", pod,
			[]string{"continue", "dryRun", "fieldSelector", "gracePeriodSeconds", "ignoreStoreReadErrorWithClusterBreakingPotential", "labelSelector", "limit", "orphanDependents", "propagationPolicy", "resourceVersion", "resourceVersionMatch", "sendInitialEvents", "shardSelector", "timeoutSeconds"},
			deleteOptionsDef, nil, statusDef},
		{"/api/v1/namespaces/{namespace}/pods/{name}", "get", "readCoreV1NamespacedPod", "get", pod, nil, "", nil, "io.k8s.api.core.v1.Pod"},
		{"/api/v1/namespaces/{namespace}/pods/{name}", "put", "replaceCoreV1NamespacedPod", "put", pod,
			[]string{"dryRun", "fieldManager", "fieldValidation"}, "io.k8s.api.core.v1.Pod", nil, "io.k8s.api.core.v1.Pod"},
		{"/api/v1/namespaces/{namespace}/pods/{name}", "patch", "patchCoreV1NamespacedPod", "patch", pod,
			[]string{"dryRun", "fieldManager", "fieldValidation", "force"}, patchDef, patchMediaTypes, "io.k8s.api.core.v1.Pod"},
		{"/api/v1/namespaces/{namespace}/pods/{name}", "delete", "deleteCoreV1NamespacedPod", "delete", pod,
			[]string{"dryRun", "gracePeriodSeconds", "ignoreStoreReadErrorWithClusterBreakingPotential", "orphanDependents", "propagationPolicy"}, deleteOptionsDef, nil, statusDef},
		{"/api/v1/pods", "get", "listCoreV1PodForAllNamespaces", "list", pod, paramNames(listParams), "", nil, "io.k8s.api.core.v1.PodList"},
		{"/api/v1/watch/namespaces/{namespace}/pods", "get", "watchCoreV1NamespacedPodList", "watchlist", pod, paramNames(listParams), "", nil, watchEventDef},
		{"/api/v1/watch/namespaces/{namespace}/pods/{name}", "get", "watchCoreV1NamespacedPod", "watch", pod, paramNames(listParams), "", nil, watchEventDef},
		{"/api/v1/watch/pods", "get", "watchCoreV1PodListForAllNamespaces", "watchlist", pod, paramNames(listParams), "", nil, watchEventDef},
		{"/api/v1/namespaces/{namespace}/pods/{name}/status", "patch", "patchCoreV1NamespacedPodStatus", "patch", pod,
			[]string{"dryRun", "fieldManager", "fieldValidation", "force"}, patchDef, patchMediaTypes, "io.k8s.api.core.v1.Pod"},
		{"/api/v1/namespaces/{namespace}/pods/{name}/eviction", "post", "createCoreV1NamespacedPodEviction", "post", &gvk{Group: "policy", Version: "v1", Kind: "Eviction"},
			[]string{"dryRun", "fieldManager", "fieldValidation"}, "io.k8s.api.policy.v1.Eviction", nil, "io.k8s.api.policy.v1.Eviction"},
		{"/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale", "put", "replaceAppsV1NamespacedDeploymentScale", "put", &gvk{Group: "autoscaling", Version: "v1", Kind: "Scale"},
			[]string{"dryRun", "fieldManager", "fieldValidation"}, "io.k8s.api.autoscaling.v1.Scale", nil, "io.k8s.api.autoscaling.v1.Scale"},
		{"/apis/rbac.authorization.k8s.io/v1/clusterroles/{name}", "patch", "patchRbacAuthorizationV1ClusterRole", "patch", &gvk{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole"},
			[]string{"dryRun", "fieldManager", "fieldValidation", "force"}, patchDef, patchMediaTypes, "io.k8s.api.rbac.v1.ClusterRole"},
		{"/apis/rbac.authorization.k8s.io/v1/watch/clusterroles", "get", "watchRbacAuthorizationV1ClusterRoleList", "watchlist", &gvk{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole"},
			paramNames(listParams), "", nil, watchEventDef},
		{"/api/v1/namespaces/{namespace}/configmaps", "post", "createCoreV1NamespacedConfigMap", "post", &gvk{Version: "v1", Kind: "ConfigMap"},
			[]string{"dryRun", "fieldManager", "fieldValidation"}, "io.k8s.api.core.v1.ConfigMap", nil, "io.k8s.api.core.v1.ConfigMap"},
		{"/apis/authorization.k8s.io/v1/subjectaccessreviews", "post", "createAuthorizationV1SubjectAccessReview", "post", &gvk{Group: "authorization.k8s.io", Version: "v1", Kind: "SubjectAccessReview"},
			[]string{"dryRun", "fieldManager", "fieldValidation"}, "io.k8s.api.authorization.v1.SubjectAccessReview", nil, "io.k8s.api.authorization.v1.SubjectAccessReview"},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			op := findOp(t, d, tt.path, tt.method)
			if op.ID != tt.id || op.Action != tt.action {
				t.Errorf("id %q action %q, want %q %q", op.ID, op.Action, tt.id, tt.action)
			}
			if diff := cmp.Diff(tt.gvk, op.GVK); diff != "" {
				t.Errorf("gvk (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.params, paramNames(op.Params)); diff != "" {
				t.Errorf("params (-want +got):\n%s", diff)
			}
			if op.Body != tt.body || !slices.Equal(op.Consumes, tt.consumes) {
				t.Errorf("body %q consumes %v", op.Body, op.Consumes)
			}
			if op.Responses[0].Code != "200" || op.Responses[0].Ref != tt.okRef {
				t.Errorf("responses %+v", op.Responses)
			}
			for _, p := range op.Params {
				if p.Description == "" || p.In != "query" {
					t.Errorf("param %+v", p)
				}
			}
		})
	}
}

func TestPathParameters(t *testing.T) {
	d := newTestDocuments(t)
	tests := map[string][]string{
		"/api/v1/namespaces/{namespace}/pods":                    {"namespace", "pretty"},
		"/api/v1/namespaces/{namespace}/pods/{name}":             {"name", "namespace", "pretty"},
		"/api/v1/namespaces/{namespace}/pods/{name}/status":      {"name", "namespace", "pretty"},
		"/apis/rbac.authorization.k8s.io/v1/clusterroles/{name}": {"name", "pretty"},
		"/apis/rbac.authorization.k8s.io/v1/clusterroles":        {"pretty"},
		"/api/v1/pods": {"pretty"},
		"/apis/apps/v1/watch/namespaces/{namespace}/deployments":  {"namespace", "pretty"},
		"/apis/apps/v1/namespaces/{namespace}/deployments/{name}": {"name", "namespace", "pretty"},
	}
	for path, want := range tests {
		t.Run(path, func(t *testing.T) {
			item := d.paths[path]
			if item == nil {
				t.Fatal("missing")
			}
			if diff := cmp.Diff(want, paramNames(item.Params)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			for _, p := range item.Params {
				if p.In == "path" && !p.Required {
					t.Errorf("path parameter %s not required", p.Name)
				}
			}
		})
	}
}

func TestVerbsLimitOperations(t *testing.T) {
	d := newTestDocuments(t)
	if _, ok := d.paths["/apis/authentication.k8s.io/v1/tokenreviews/{name}"]; ok {
		t.Error("create-only resource has an item path")
	}
	if _, ok := d.paths["/apis/authentication.k8s.io/v1/watch/tokenreviews"]; ok {
		t.Error("create-only resource has a watch path")
	}
	// Subresources without a published form are left out.
	for _, p := range []string{"/api/v1/namespaces/{namespace}/pods/{name}/log", "/api/v1/namespaces/{name}/finalize"} {
		if _, ok := d.paths[p]; ok {
			t.Errorf("unexpected path %s", p)
		}
	}
	if _, ok := d.paths["/apis/apps/v1/"]; !ok {
		t.Error("no discovery path for apps/v1")
	}
}

func TestNewRejects(t *testing.T) {
	pods := res("", "v1", "Pod", "pods", true)
	tests := map[string]struct {
		resources []Resource
		want      error
	}{
		"unknown kind":    {[]Resource{res("example.com", "v1", "Widget", "widgets", true)}, ErrUnknownKind},
		"unknown list":    {[]Resource{{GVK: pods.GVK, ListGVK: schema.GroupVersionKind{Version: "v1", Kind: "PodBag"}, Plural: "pods", Verbs: []string{"list"}}}, ErrUnknownKind},
		"no list kind":    {[]Resource{{GVK: pods.GVK, Plural: "pods", Verbs: []string{"list"}}}, ErrInvalidResource},
		"no kind":         {[]Resource{{Plural: "pods"}}, ErrInvalidResource},
		"bad plural":      {[]Resource{{GVK: pods.GVK, Plural: "Pods"}}, ErrInvalidResource},
		"slash in plural": {[]Resource{{GVK: pods.GVK, Plural: "pods/status"}}, ErrInvalidResource},
		"unknown verb":    {[]Resource{{GVK: pods.GVK, Plural: "pods", Verbs: []string{"escalate"}}}, ErrInvalidResource},
		"duplicate":       {[]Resource{pods, pods}, ErrInvalidResource},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			if _, err := New(clientgoscheme.Scheme, tt.resources, testInfo); !errors.Is(err, tt.want) {
				t.Fatalf("err %v, want %v", err, tt.want)
			}
		})
	}
}

func TestNamesOf(t *testing.T) {
	tests := map[schema.GroupVersion]gvNames{
		{Version: "v1"}:                                             {prefix: "/api/v1", id: "CoreV1", tag: "core_v1"},
		{Group: "apps", Version: "v1"}:                              {prefix: "/apis/apps/v1", id: "AppsV1", tag: "apps_v1"},
		{Group: "rbac.authorization.k8s.io", Version: "v1"}:         {prefix: "/apis/rbac.authorization.k8s.io/v1", id: "RbacAuthorizationV1", tag: "rbacAuthorization_v1"},
		{Group: "flowcontrol.apiserver.k8s.io", Version: "v1beta3"}: {prefix: "/apis/flowcontrol.apiserver.k8s.io/v1beta3", id: "FlowcontrolApiserverV1beta3", tag: "flowcontrolApiserver_v1beta3"},
		{Group: "stable.example.com", Version: "v1"}:                {prefix: "/apis/stable.example.com/v1", id: "StableExampleComV1", tag: "stableExampleCom_v1"},
		{Group: "cert-manager.io", Version: "v1"}:                   {prefix: "/apis/cert-manager.io/v1", id: "CertManagerIoV1", tag: "certManagerIo_v1"},
		{Group: "cluster.x-k8s.io", Version: "v1beta1"}:             {prefix: "/apis/cluster.x-k8s.io/v1beta1", id: "ClusterXK8sIoV1beta1", tag: "clusterXK8sIo_v1beta1"},
	}
	for gv, want := range tests {
		t.Run(gv.String(), func(t *testing.T) {
			if got := namesOf(gv); got != want {
				t.Errorf("got %+v, want %+v", got, want)
			}
		})
	}
}

func TestDescriptionArticles(t *testing.T) {
	tests := []struct{ kind, want string }{
		{kind: "Pod", want: "create a Pod"},
		{kind: "Event", want: "create an Event"},
		{kind: "Ingress", want: "create an Ingress"},
		{kind: "Endpoints", want: "create Endpoints"},
		{kind: "StorageClass", want: "create a StorageClass"},
	}
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			if got := "create" + article(tt.kind) + tt.kind; got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

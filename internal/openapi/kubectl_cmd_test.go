package openapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/openapi3"
	"k8s.io/kubectl/pkg/cmd/explain"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
)

// discoveryHandler serves the legacy discovery documents of resources,
// which kubectl needs to map "pods" or "deployment" to a resource.
func discoveryHandler(t *testing.T, resources []Resource) http.Handler {
	t.Helper()
	lists := map[schema.GroupVersion]*metav1.APIResourceList{}
	groups := map[string]*metav1.APIGroup{}
	var order []string
	for _, r := range resources {
		gv := r.GVK.GroupVersion()
		l := lists[gv]
		if l == nil {
			l = &metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"}, GroupVersion: gv.String()}
			lists[gv] = l
		}
		l.APIResources = append(l.APIResources, metav1.APIResource{
			Name: r.Plural, SingularName: strings.ToLower(r.GVK.Kind), Namespaced: r.Namespaced, Kind: r.GVK.Kind, Verbs: r.Verbs,
		})
		if gv.Group != "" && groups[gv.Group] == nil {
			v := metav1.GroupVersionForDiscovery{GroupVersion: gv.String(), Version: gv.Version}
			groups[gv.Group] = &metav1.APIGroup{Name: gv.Group, Versions: []metav1.GroupVersionForDiscovery{v}, PreferredVersion: v}
			order = append(order, gv.Group)
		}
	}
	write := func(w http.ResponseWriter, v any) {
		w.Header().Set("Content-Type", "application/json")
		if err := json.NewEncoder(w).Encode(v); err != nil {
			t.Error(err)
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api", func(w http.ResponseWriter, r *http.Request) {
		write(w, metav1.APIVersions{TypeMeta: metav1.TypeMeta{Kind: "APIVersions"}, Versions: []string{"v1"}})
	})
	mux.HandleFunc("GET /apis", func(w http.ResponseWriter, r *http.Request) {
		list := metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}}
		for _, g := range order {
			list.Groups = append(list.Groups, *groups[g])
		}
		write(w, list)
	})
	for gv, l := range lists {
		mux.HandleFunc("GET /"+gvPath(gv), func(w http.ResponseWriter, r *http.Request) { write(w, l) })
	}
	return mux
}

// kubectlFactory returns kubectl's factory for a TLS server that serves
// discovery and the documents, as kubectl would build it from its flags.
func kubectlFactory(t *testing.T) cmdutil.Factory {
	t.Helper()
	resources := servedResources()
	d, err := New(clientgoscheme.Scheme, resources, testInfo)
	if err != nil {
		t.Fatal(err)
	}
	return kubectlFactoryFor(t, d, resources)
}

// kubectlCustomFactory is kubectlFactory with the custom resources of
// testdata/custom served and published as well.
func kubectlCustomFactory(t *testing.T) cmdutil.Factory {
	t.Helper()
	d := newTestDocuments(t)
	crs := customResources(t, structuralForm, "crontab.yaml", "instance.yaml")
	if err := d.SetCustom(crs); err != nil {
		t.Fatal(err)
	}
	resources := servedResources()
	for _, cr := range crs {
		resources = append(resources, cr.Resource)
	}
	return kubectlFactoryFor(t, d, resources)
}

// kubectlFactoryFor returns kubectl's factory for a TLS server that serves
// d and the discovery documents of resources.
func kubectlFactoryFor(t *testing.T, d *Documents, resources []Resource) cmdutil.Factory {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/openapi/v2", d.V2Handler())
	mux.Handle("/openapi/v3", d.V3Handler())
	mux.Handle("/openapi/v3/", d.V3Handler())
	mux.Handle("/", discoveryHandler(t, resources))
	srv := httptest.NewTLSServer(mux)
	t.Cleanup(srv.Close)
	flags := genericclioptions.NewConfigFlags(false)
	host, insecure, cache := srv.URL, true, t.TempDir()
	flags.APIServer, flags.Insecure, flags.CacheDir = &host, &insecure, &cache
	return cmdutil.NewFactory(flags)
}

// TestKubectlExplainCommand runs kubectl's explain command itself, from
// resource name to output, against discovery and the documents over HTTPS:
// `kubectl explain pods.spec` reads the v3 documents and
// `-o plaintext-openapiv2` the v2 one in protobuf.
func TestKubectlExplainCommand(t *testing.T) {
	f := kubectlFactory(t)
	tests := []struct {
		args      []string
		output    string
		recursive bool
		want      []string
	}{
		{[]string{"pods.spec"}, "plaintext", false, []string{"KIND:       Pod", "FIELD: spec <PodSpec>", "containers\t<[]Container> -required-", "List of containers belonging to the pod."}},
		{[]string{"deployment.spec.template"}, "plaintext", true, []string{"GROUP:      apps", "KIND:       Deployment", "FIELD: template <PodTemplateSpec>", "    containers\t<[]Container> -required-", "      ports\t<[]ContainerPort>"}},
		// The v2 renderer is kubectl's older one, with its own layout.
		{[]string{"pods.spec"}, "plaintext-openapiv2", false, []string{"KIND:     Pod", "RESOURCE: spec <Object>", "containers\t<[]Object> -required-", "List of containers belonging to the pod."}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " ")+" -o "+tt.output, func(t *testing.T) {
			var out, errOut bytes.Buffer
			ef := explain.NewExplainFlags(genericiooptions.IOStreams{Out: &out, ErrOut: &errOut})
			ef.OutputFormat, ef.Recursive = tt.output, tt.recursive
			o, err := ef.ToOptions(f, "kubectl", tt.args)
			if err != nil {
				t.Fatal(err)
			}
			if err := o.Validate(); err != nil {
				t.Fatal(err)
			}
			if err := o.Run(); err != nil {
				t.Fatalf("explain: %v\n%s", err, errOut.String())
			}
			for _, w := range tt.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
}

// TestKubectlApplyValidation runs the validator that `kubectl apply` and
// `kubectl create` use by default (--validate=strict). It validates on the
// client side only when the documents say the server cannot: given an
// unknown field, a nil error means kubectl left the check to the server,
// through ?fieldValidation=Strict.
func TestKubectlApplyValidation(t *testing.T) {
	f := kubectlFactory(t)
	v, err := f.Validator(metav1.FieldValidationStrict)
	if err != nil {
		t.Fatal(err)
	}
	manifests := map[string]string{
		"pod":         "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: nginx}], bogus: 1}\n",
		"deployment":  "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {bogus: 1}\n",
		"clusterrole": "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: r}\nbogus: 1\n",
	}
	for name, m := range manifests {
		t.Run(name, func(t *testing.T) {
			if err := v.ValidateBytes([]byte(m)); err != nil {
				t.Errorf("kubectl validated on the client side: %v", err)
			}
		})
	}
}

// TestKubectlExplainCustomCommand runs kubectl explain on custom
// resources, through the v3 documents and the v2 one.
func TestKubectlExplainCustomCommand(t *testing.T) {
	f := kubectlCustomFactory(t)
	tests := []struct {
		args   []string
		output string
		want   []string
	}{
		{[]string{"crontabs"}, "plaintext", []string{"GROUP:      stable.example.com", "KIND:       CronTab", "VERSION:    v1", "CronTab runs a command on a schedule.", "metadata\t<ObjectMeta>", "spec\t<Object>"}},
		{[]string{"crontabs.spec"}, "plaintext", []string{"FIELD: spec <Object>", "cronSpec\t<string> -required-", "ports\t<[]Object>", "note\t<string> -required-"}},
		{[]string{"instances.spec.size"}, "plaintext", []string{"KIND:       Instance", "FIELD: size <string>", "ENUM:", "small"}},
		{[]string{"crontabs.spec"}, "plaintext-openapiv2", []string{"KIND:     CronTab", "RESOURCE: spec <Object>", "cronSpec\t<string> -required-"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " ")+" -o "+tt.output, func(t *testing.T) {
			var out, errOut bytes.Buffer
			ef := explain.NewExplainFlags(genericiooptions.IOStreams{Out: &out, ErrOut: &errOut})
			ef.OutputFormat = tt.output
			o, err := ef.ToOptions(f, "kubectl", tt.args)
			if err != nil {
				t.Fatal(err)
			}
			if err := o.Validate(); err != nil {
				t.Fatal(err)
			}
			if err := o.Run(); err != nil {
				t.Fatalf("explain: %v\n%s", err, errOut.String())
			}
			for _, w := range tt.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
}

// TestKubectlApplyCustom checks what kubectl apply decides from the
// documents for custom resources: it leaves field validation to the
// server, and, finding no strategic merge patch among what their PATCH
// operations take (in v3, then v2, as apply looks), sends a JSON merge
// patch; built-in kinds keep their strategic merge patch.
func TestKubectlApplyCustom(t *testing.T) {
	f := kubectlCustomFactory(t)
	v, err := f.Validator(metav1.FieldValidationStrict)
	if err != nil {
		t.Fatal(err)
	}
	manifest := "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {name: c, namespace: default}\nspec: {cronSpec: '* * * * */5', bogus: 1}\n"
	if err := v.ValidateBytes([]byte(manifest)); err != nil {
		t.Errorf("kubectl validated on the client side: %v", err)
	}

	client, err := f.OpenAPIV3Client()
	if err != nil {
		t.Fatal(err)
	}
	root := openapi3.NewRoot(client)
	v2, err := f.OpenAPISchema()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		gvk       schema.GroupVersionKind
		strategic bool
	}{
		{gvk: cronTabGV.WithKind("CronTab")},
		{gvk: cronTabGV.WithKind("Instance")},
		{gvk: schema.GroupVersionKind{Group: "stable.example.com", Version: "v1beta1", Kind: "CronTab"}},
		{gvk: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, strategic: true},
	}
	for _, tt := range tests {
		t.Run(tt.gvk.String(), func(t *testing.T) {
			doc, err := root.GVSpec(tt.gvk.GroupVersion())
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for path, item := range doc.Paths.Paths {
				if item.Patch == nil || !gvkMatches(item.Patch.Extensions, tt.gvk) {
					continue
				}
				found = true
				content := item.Patch.RequestBody.Content
				if _, ok := content["application/strategic-merge-patch+json"]; ok != tt.strategic {
					t.Errorf("v3 %s: strategic merge patch %v, want %v", path, ok, tt.strategic)
				}
				if _, ok := content["application/merge-patch+json"]; !ok {
					t.Errorf("v3 %s: no merge patch", path)
				}
			}
			if !found {
				t.Error("v3: no PATCH operation for the kind")
			}
			consumes := v2.GetConsumes(tt.gvk, "PATCH")
			if len(consumes) == 0 {
				t.Fatal("v2: no PATCH operation for the kind")
			}
			if got := slices.Contains(consumes, "application/strategic-merge-patch+json"); got != tt.strategic {
				t.Errorf("v2: strategic merge patch %v, want %v (%v)", got, tt.strategic, consumes)
			}
		})
	}
}

// gvkMatches reports whether an operation's x-kubernetes-group-version-kind
// is gvk, as kubectl compares them.
func gvkMatches(ext map[string]any, gvk schema.GroupVersionKind) bool {
	m, ok := ext["x-kubernetes-group-version-kind"].(map[string]any)
	return ok && m["group"] == gvk.Group && m["version"] == gvk.Version && m["kind"] == gvk.Kind
}

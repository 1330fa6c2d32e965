package openapi

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	openapi_v3 "github.com/google/gnostic-models/openapiv3"
	"google.golang.org/protobuf/proto"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/kube-openapi/pkg/spec3"
	protomodels "k8s.io/kube-openapi/pkg/util/proto"
)

func mustBuild(t *testing.T) (*Documents, *built) {
	t.Helper()
	d := newTestDocuments(t)
	b, err := d.build()
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	return d, b
}

// TestV2ParsesWithGnostic checks the v2 document with the strict parser
// kube-apiserver and kubectl use for its protobuf form, and with the model
// kubectl builds from it (explain --output plaintext-openapiv2, the
// fallback of apply).
func TestV2ParsesWithGnostic(t *testing.T) {
	_, b := mustBuild(t)
	checkV2Parses(t, b, "io.k8s.api.core.v1.Pod", "io.k8s.api.apps.v1.Deployment", "io.k8s.api.rbac.v1.ClusterRole", "io.k8s.api.core.v1.ConfigMap")
	t.Run("custom", func(t *testing.T) {
		b, err := newCustomDocuments(t, "crontab.yaml", "instance.yaml").build()
		if err != nil {
			t.Fatal(err)
		}
		checkV2Parses(t, b, "io.k8s.api.core.v1.Pod", "com.example.stable.v1.CronTab", "com.example.stable.v1.CronTabList", "com.example.stable.v1beta1.CronTab", "com.example.stable.v1.Instance")
	})
}

func checkV2Parses(t *testing.T, b *built, models ...string) {
	t.Helper()
	doc, err := openapi_v2.ParseDocument(mustPlain(mustV2(b)))
	if err != nil {
		t.Fatalf("gnostic v2: %v", err)
	}
	pb, err := b.v2Proto.get(mustV2(b), v2ToProto)
	if err != nil {
		t.Fatal(err)
	}
	var decoded openapi_v2.Document
	if err := proto.Unmarshal(pb, &decoded); err != nil {
		t.Fatalf("protobuf: %v", err)
	}
	if !proto.Equal(doc, &decoded) {
		t.Error("protobuf form differs from the JSON form")
	}
	parsed, err := protomodels.NewOpenAPIData(doc)
	if err != nil {
		t.Fatalf("kubectl models: %v", err)
	}
	for _, name := range models {
		if parsed.LookupModel(name) == nil {
			t.Errorf("model %s missing", name)
		}
	}
	assertRefsResolve(t, "v2", mustPlain(mustV2(b)), "#/definitions/", "definitions")
}

// TestV3ParsesWithSpec3 checks every group-version document with the
// parsers kubectl uses (spec3 for apply and the fieldValidation check,
// gnostic for the protobuf form and proto models).
func TestV3ParsesWithSpec3(t *testing.T) {
	_, b := mustBuild(t)
	custom, err := newCustomDocuments(t, "crontab.yaml", "instance.yaml").build()
	if err != nil {
		t.Fatal(err)
	}
	gvs := maps.Clone(b.gvs)
	for key, g := range custom.gvs {
		if strings.HasPrefix(key, "apis/stable.example.com/") {
			gvs[key] = g
		}
	}
	for key, g := range gvs {
		t.Run(key, func(t *testing.T) {
			var doc spec3.OpenAPI
			if err := json.Unmarshal(mustPlain(g.json), &doc); err != nil {
				t.Fatalf("spec3: %v", err)
			}
			if doc.Version != "3.0.0" || doc.Paths == nil || len(doc.Paths.Paths) == 0 || doc.Components == nil {
				t.Fatalf("incomplete document: version %q", doc.Version)
			}
			gdoc, err := openapi_v3.ParseDocument(mustPlain(g.json))
			if err != nil {
				t.Fatalf("gnostic v3: %v", err)
			}
			if _, err := protomodels.NewOpenAPIV3Data(gdoc); err != nil {
				t.Fatalf("proto models: %v", err)
			}
			assertRefsResolve(t, key, mustPlain(g.json), "#/components/schemas/", "components", "schemas")
		})
	}
}

// assertRefsResolve checks that every $ref of a document names a schema of
// the same document: each v3 document must be self-contained.
func assertRefsResolve(t *testing.T, name string, body []byte, prefix string, at ...string) {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	defs := doc
	for _, k := range at {
		defs, _ = defs[k].(map[string]any)
	}
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok {
				if !strings.HasPrefix(ref, prefix) || defs[strings.TrimPrefix(ref, prefix)] == nil {
					t.Errorf("%s: unresolved $ref %q", name, ref)
				}
			}
			for _, e := range v {
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(doc)
}

// TestStrategicMergePatchFromV3 computes three-way strategic merge patches
// from the v3 schemas, as kubectl apply does, and checks that lists are
// merged by their keys rather than replaced.
func TestStrategicMergePatchFromV3(t *testing.T) {
	_, b := mustBuild(t)
	tests := []struct {
		name, gv, def               string
		original, modified, current string
		want                        string
	}{
		{
			name: "deployment containers by name", gv: "apis/apps/v1", def: "io.k8s.api.apps.v1.Deployment",
			original: `{"metadata":{"name":"web","labels":{"a":"b"}},"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:1"},{"name":"sidecar","image":"envoy:1"}]}}}}`,
			modified: `{"metadata":{"name":"web","labels":{"a":"b"}},"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:2"},{"name":"sidecar","image":"envoy:1"}]}}}}`,
			current:  `{"metadata":{"name":"web","labels":{"a":"b"}},"spec":{"replicas":3,"template":{"spec":{"containers":[{"name":"web","image":"nginx:1","imagePullPolicy":"Always"},{"name":"sidecar","image":"envoy:1"}]}}}}`,
			want:     `{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"web"},{"name":"sidecar"}],"containers":[{"image":"nginx:2","name":"web"}]}}}}`,
		},
		{
			name: "pod env, resources, annotations", gv: "api/v1", def: "io.k8s.api.core.v1.Pod",
			original: `{"metadata":{"name":"p","annotations":{"x":"1"}},"spec":{"containers":[{"name":"c","env":[{"name":"A","value":"1"},{"name":"B","value":"2"}],"resources":{"limits":{"cpu":"1"}}}]}}`,
			modified: `{"metadata":{"name":"p","annotations":{"x":"2"}},"spec":{"containers":[{"name":"c","env":[{"name":"A","value":"1"}],"resources":{"limits":{"cpu":"2","memory":"1Gi"}}}]}}`,
			current:  `{"metadata":{"name":"p","annotations":{"x":"1","y":"kept"}},"spec":{"containers":[{"name":"c","env":[{"name":"A","value":"1"},{"name":"B","value":"2"},{"name":"C","value":"injected"}],"resources":{"limits":{"cpu":"1"}}}]}}`,
			want:     `{"metadata":{"annotations":{"x":"2"}},"spec":{"$setElementOrder/containers":[{"name":"c"}],"containers":[{"$setElementOrder/env":[{"name":"A"}],"env":[{"$patch":"delete","name":"B"}],"name":"c","resources":{"limits":{"cpu":"2","memory":"1Gi"}}}]}}`,
		},
		{
			name: "clusterrole rules replaced", gv: "apis/rbac.authorization.k8s.io/v1", def: "io.k8s.api.rbac.v1.ClusterRole",
			original: `{"metadata":{"name":"r"},"rules":[{"verbs":["get"],"resources":["pods"],"apiGroups":[""]}]}`,
			modified: `{"metadata":{"name":"r"},"rules":[{"verbs":["get","list"],"resources":["pods"],"apiGroups":[""]}]}`,
			current:  `{"metadata":{"name":"r"},"rules":[{"verbs":["get"],"resources":["pods"],"apiGroups":[""]}]}`,
			want:     `{"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get","list"]}]}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var doc spec3.OpenAPI
			if err := json.Unmarshal(mustPlain(b.gvs[tt.gv].json), &doc); err != nil {
				t.Fatal(err)
			}
			meta := strategicpatch.PatchMetaFromOpenAPIV3{Schema: doc.Components.Schemas[tt.def], SchemaList: doc.Components.Schemas}
			patch, err := strategicpatch.CreateThreeWayMergePatch([]byte(tt.original), []byte(tt.modified), []byte(tt.current), meta, false)
			if err != nil {
				t.Fatalf("CreateThreeWayMergePatch: %v", err)
			}
			if string(patch) != tt.want {
				t.Errorf("patch\n got %s\nwant %s", patch, tt.want)
			}
		})
	}
}

// mustPlain is an artifact's document uncompressed; it cannot fail for
// what newArtifact made.
func mustPlain(a artifact) []byte {
	b, err := a.plain()
	if err != nil {
		panic(err)
	}
	return b
}

// mustV2 is a build's v2 document, made on first use; it cannot fail for a
// model that New accepted.
func mustV2(b *built) artifact {
	a, err := b.v2.get()
	if err != nil {
		panic(err)
	}
	return a
}

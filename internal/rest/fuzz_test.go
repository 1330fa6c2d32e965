package rest

import (
	"net/http/httptest"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// FuzzDecodeContinue feeds arbitrary continue tokens: they must decode to
// a key under the prefix or fail, never panic.
func FuzzDecodeContinue(f *testing.F) {
	f.Add(encodeContinue(5, "/registry/configmaps/default/b\x00", "/registry/configmaps/"))
	f.Add("eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiIuLi8ifQ")
	f.Add("!!!")
	f.Fuzz(func(t *testing.T, tok string) {
		rev, key, err := decodeContinue(tok, "/registry/configmaps/")
		if err != nil {
			return
		}
		if rev <= 0 || !strings.HasPrefix(key, "/registry/configmaps/") {
			t.Fatalf("decoded rev=%d key=%q outside the prefix", rev, key)
		}
	})
}

// FuzzApplyPatch applies arbitrary patches of every type to a ConfigMap.
func FuzzApplyPatch(f *testing.F) {
	doc := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","labels":{"x":"y"}},"data":{"k":"v"}}`)
	f.Add(0, []byte(`[{"op":"add","path":"/data/j","value":"2"}]`))
	f.Add(1, []byte(`{"data":{"k":null}}`))
	f.Add(2, []byte(`{"metadata":{"$patch":"replace"}}`))
	f.Add(2, []byte(`{"$setElementOrder/x":[1]}`))
	types := []string{mediaJSONPatch, mediaMergePatch, mediaSMPatch}
	f.Fuzz(func(t *testing.T, which int, patch []byte) {
		if which < 0 {
			which = -which
		}
		_, _ = applyPatch(types[which%len(types)], doc, patch, &corev1.ConfigMap{})
	})
}

// FuzzDecodeBody decodes arbitrary request bodies as every content type.
func FuzzDecodeBody(f *testing.F) {
	ts := newTestServer(f)
	f.Add(0, []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}`))
	f.Add(1, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"))
	f.Add(2, []byte("k8s\x00\x0a\x0f\x0a\x02v1\x12\x09ConfigMap"))
	f.Add(0, []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","name":"b"}}`))
	ctypes := []string{mediaJSON, mediaYAML, mediaProtobuf}
	res, _ := ts.h.reg.ForKind(corev1.SchemeGroupVersion.WithKind("ConfigMap"))
	f.Fuzz(func(t *testing.T, which int, body []byte) {
		if which < 0 {
			which = -which
		}
		r := httptest.NewRequest("POST", "/api/v1/namespaces/default/configmaps", nil)
		r.Header.Set("Content-Type", ctypes[which%len(ctypes)])
		for _, v := range []string{"Strict", "Warn", "Ignore"} {
			_, _ = ts.h.decodeBody(r, res, body, v)
		}
	})
}

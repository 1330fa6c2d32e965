package audit

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"

	"github.com/portcullis/portcullis/internal/request"
)

func TestWithoutManagedFields(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"object", `{"metadata":{"name":"a","managedFields":[{}]},"spec":{}}`, `{"metadata":{"name":"a"},"spec":{}}`},
		{"object without managed fields is untouched", `{"spec":{"z":1,"a":2},"metadata":{"name":"a"}}`, `{"spec":{"z":1,"a":2},"metadata":{"name":"a"}}`},
		{"list items", `{"kind":"PodList","metadata":{},"items":[{"metadata":{"name":"a","managedFields":[]}},{"metadata":{"name":"b"}}]}`,
			`{"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}],"kind":"PodList","metadata":{}}`},
		{"table rows", `{"kind":"Table","rows":[{"cells":[1],"object":{"metadata":{"managedFields":[],"name":"a"}}}]}`,
			`{"kind":"Table","rows":[{"cells":[1],"object":{"metadata":{"name":"a"}}}]}`},
		{"rows outside a Table are data", `{"kind":"Sheet","rows":[{"object":{"metadata":{"managedFields":[]}}}]}`,
			`{"kind":"Sheet","rows":[{"object":{"metadata":{"managedFields":[]}}}]}`},
		{"a JSON patch is not an object", `[{"op":"remove","path":"/metadata/managedFields"}]`, `[{"op":"remove","path":"/metadata/managedFields"}]`},
		{"large numbers survive", `{"metadata":{"managedFields":[]},"n":12345678901234567890}`, `{"metadata":{},"n":12345678901234567890}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(withoutManagedFields([]byte(tt.in))); got != tt.want {
				t.Errorf("withoutManagedFields() =\n %s\nwant\n %s", got, tt.want)
			}
		})
	}
}

// FuzzRequestBody feeds untrusted request and response bodies through a
// Recorder: nothing may panic and the event must still encode, or the
// Logger would lose it.
func FuzzRequestBody(f *testing.F) {
	f.Add([]byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","managedFields":[{"manager":"m"}]}}`))
	f.Add([]byte(`{"kind":"Table","rows":[{"object":{"metadata":{"managedFields":[]}}}]}`))
	f.Add([]byte(`{"items":[{"metadata":{"managedFields":null}}, 3, "x"]}`))
	f.Add([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"))
	f.Add([]byte(`[{"op":"add","path":"/x","value":1}]`))
	f.Add([]byte("\x0a\x02k8s\x00\xff"))
	f.Add([]byte(`{"metadata":"notanobject"}`))
	st := &request.State{Info: resourceInfo("create", "", "pods", "", "default", "")}
	req := httptest.NewRequest(http.MethodPost, "/api/v1/namespaces/default/pods", nil)
	f.Fuzz(func(t *testing.T, body []byte) {
		sink := &memSink{}
		d := Decision{Level: auditv1.LevelRequestResponse, OmitManagedFields: true}
		rec, err := Begin(sink, d, st, req, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		rec.SetRequestObject(body)
		rec.SetResponseObject(body)
		if err := rec.End(); err != nil {
			t.Fatal(err)
		}
		for _, ev := range sink.events {
			if _, err := json.Marshal(ev); err != nil {
				t.Fatalf("event does not encode: %v", err)
			}
		}
	})
}

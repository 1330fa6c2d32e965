package conversion

import (
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/webhookclient"
)

var (
	v1 = schema.GroupVersion{Group: "stable.example.com", Version: "v1"}
	v2 = schema.GroupVersion{Group: "stable.example.com", Version: "v2"}
)

// call is one request the webhook received.
type call struct {
	query, userAgent string
	review           map[string]any
}

// answer is what a test webhook says: a review (marshalled) or raw bytes.
type answer struct {
	status      int
	contentType string
	raw         string
	review      any
}

// hook is a real HTTPS conversion webhook on 127.0.0.1.
type hook struct {
	srv   *httptest.Server
	ca    []byte
	mu    sync.Mutex
	calls []call
}

// newHook serves respond's answers; respond gets the decoded review.
func newHook(t *testing.T, respond func(review map[string]any) answer) *hook {
	t.Helper()
	h := &hook{}
	done := make(chan struct{})
	h.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var review map[string]any
		_ = json.Unmarshal(body, &review)
		h.mu.Lock()
		h.calls = append(h.calls, call{query: r.URL.RawQuery, userAgent: r.UserAgent(), review: review})
		h.mu.Unlock()
		if respond == nil {
			// Never answer: the caller must give up.
			select {
			case <-r.Context().Done():
			case <-done:
			}
			return
		}
		a := respond(review)
		if a.contentType == "" {
			a.contentType = "application/json"
		}
		if a.status == 0 {
			a.status = http.StatusOK
		}
		data := []byte(a.raw)
		if a.review != nil {
			data, _ = json.Marshal(a.review)
		}
		w.Header().Set("Content-Type", a.contentType)
		w.WriteHeader(a.status)
		_, _ = w.Write(data)
	}))
	t.Cleanup(h.srv.Close)
	t.Cleanup(func() { close(done) })
	h.ca = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: h.srv.Certificate().Raw})
	return h
}

func (h *hook) url() string { return h.srv.URL + "/convert" }

func (h *hook) called() []call {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]call(nil), h.calls...)
}

// crd is the CronTab CRD of the tests, converted by the webhook at url.
func crd(url string, ca []byte, reviewVersions ...string) *apiextensionsv1.CustomResourceDefinition {
	if len(reviewVersions) == 0 {
		reviewVersions = []string{"v1", "v1beta1"}
	}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "crontabs.stable.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "stable.example.com",
			Conversion: &apiextensionsv1.CustomResourceConversion{
				Strategy: apiextensionsv1.WebhookConverter,
				Webhook: &apiextensionsv1.WebhookConversion{
					ClientConfig:             &apiextensionsv1.WebhookClientConfig{URL: &url, CABundle: ca},
					ConversionReviewVersions: reviewVersions,
				},
			},
		},
	}
}

func newWebhook(t *testing.T, def *apiextensionsv1.CustomResourceDefinition, opts Options) *Webhook {
	t.Helper()
	if opts.Client == nil {
		opts.Client = webhookclient.New(nil)
	}
	w, err := New(def, opts)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// cronTab is a stored CronTab: v1 has spec.size, a string; v2
// spec.sizeInt, an integer.
func cronTab(gv schema.GroupVersion, name string, size int) *unstructured.Unstructured {
	spec := map[string]any{"size": strconv.Itoa(size)}
	if gv == v2 {
		spec = map[string]any{"sizeInt": int64(size)}
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": gv.String(),
		"kind":       "CronTab",
		"metadata": map[string]any{
			"name": name, "namespace": "default", "uid": "uid-" + name,
			"generation": int64(1), "labels": map[string]any{"app": "cron"},
		},
		"spec": spec,
	}}
}

// convertSpec is a correct webhook's work on one object.
func convertSpec(obj map[string]any, desired string) map[string]any {
	obj["apiVersion"] = desired
	spec, _ := obj["spec"].(map[string]any)
	switch {
	case strings.HasSuffix(desired, "/v2"):
		if s, ok := spec["size"].(string); ok {
			n, _ := strconv.Atoi(s)
			spec["sizeInt"] = n
			delete(spec, "size")
		}
	default:
		if n, ok := spec["sizeInt"].(float64); ok {
			spec["size"] = strconv.Itoa(int(n))
			delete(spec, "sizeInt")
		}
	}
	return obj
}

// converting answers as a correct webhook would, after edit has changed
// each converted object (nil: no change) and then the response.
func converting(editObj func(i int, obj map[string]any), editResp func(resp map[string]any)) func(map[string]any) answer {
	return func(review map[string]any) answer {
		req, _ := review["request"].(map[string]any)
		desired, _ := req["desiredAPIVersion"].(string)
		objs, _ := req["objects"].([]any)
		out := []any{}
		for i, o := range objs {
			obj := convertSpec(o.(map[string]any), desired)
			if editObj != nil {
				editObj(i, obj)
			}
			out = append(out, obj)
		}
		resp := map[string]any{"uid": req["uid"], "convertedObjects": out, "result": map[string]any{"status": "Success"}}
		if editResp != nil {
			editResp(resp)
		}
		return answer{review: map[string]any{"apiVersion": review["apiVersion"], "kind": "ConversionReview", "response": resp}}
	}
}

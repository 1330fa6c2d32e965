package e2e

import (
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/portcullis/portcullis/test/e2e/harness"
)

// conversionWebhook is a CRD conversion webhook in the test process, on
// 127.0.0.1 over TLS: gizmos' v1 spec.size (a string) is v2's
// spec.sizeInt (an integer). It records what each review asked for.
type conversionWebhook struct {
	srv     *httptest.Server
	mu      sync.Mutex
	reviews []string // desiredAPIVersion and object count of each review
}

func newConversionWebhook(t *testing.T) *conversionWebhook {
	t.Helper()
	h := &conversionWebhook{}
	h.srv = httptest.NewTLSServer(http.HandlerFunc(h.serve))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *conversionWebhook) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var review apiextensionsv1.ConversionReview
	if err := json.Unmarshal(body, &review); err != nil || review.Request == nil {
		http.Error(w, "not a ConversionReview", http.StatusBadRequest)
		return
	}
	req := review.Request
	h.mu.Lock()
	h.reviews = append(h.reviews, req.DesiredAPIVersion+" x"+strconv.Itoa(len(req.Objects)))
	h.mu.Unlock()
	resp := &apiextensionsv1.ConversionResponse{UID: req.UID}
	resp.Result.Status = "Success"
	for _, raw := range req.Objects {
		var obj map[string]any
		if err := json.Unmarshal(raw.Raw, &obj); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		obj["apiVersion"] = req.DesiredAPIVersion
		if spec, ok := obj["spec"].(map[string]any); ok {
			if s, ok := spec["size"].(string); ok {
				spec["sizeInt"], _ = strconv.Atoi(s)
				delete(spec, "size")
			} else if n, ok := spec["sizeInt"].(float64); ok {
				spec["size"] = strconv.Itoa(int(n))
				delete(spec, "sizeInt")
			}
		}
		data, _ := json.Marshal(obj)
		resp.ConvertedObjects = append(resp.ConvertedObjects, runtime.RawExtension{Raw: data})
	}
	out := apiextensionsv1.ConversionReview{TypeMeta: review.TypeMeta, Response: resp}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(&out)
}

// took returns the reviews since the last call.
func (h *conversionWebhook) took() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := h.reviews
	h.reviews = nil
	return out
}

// crdFile writes the gizmos CRD naming the webhook at url with the
// certificate of srv as its CA bundle.
func (h *conversionWebhook) crdFile(t *testing.T) string {
	t.Helper()
	doc, err := os.ReadFile("testdata/crdconversion/gizmo-crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: h.srv.Certificate().Raw})
	filled := strings.NewReplacer("WEBHOOK_URL", h.srv.URL+"/convert", "WEBHOOK_CA", base64.StdEncoding.EncodeToString(ca)).Replace(string(doc))
	path := filepath.Join(t.TempDir(), "gizmo-crd.yaml")
	if err := os.WriteFile(path, []byte(filled), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCRDConversion drives a CRD whose versions differ in shape, with a
// real conversion webhook, through kubectl: create in v2, read in both
// versions, list, and what a user sees once the webhook is gone. The
// error texts are kube-apiserver v1.37.2's for the same steps.
func TestCRDConversion(t *testing.T) {
	t.Parallel()
	s := harness.Start(t)
	hook := newConversionWebhook(t)
	createNamespace(t, s.Client(t), "gizmos")

	step(t, "define", func(t *testing.T) {
		s.MustKubectl(t, "apply", "-f", hook.crdFile(t))
		s.MustKubectl(t, "wait", "--for", "condition=established", "--timeout=60s", "crd/gizmos.conversion.example.com")
		eventually(t, "v2 in discovery", func() error {
			_, errOut, err := s.Kubectl(t, "get", "gizmos.v2.conversion.example.com", "-n", "gizmos")
			if err != nil {
				return errString(errOut)
			}
			return nil
		})
		hook.took()
	})

	step(t, "create in v2, stored in v1", func(t *testing.T) {
		out := s.MustKubectl(t, "create", "-f", "testdata/crdconversion/gizmo-v2.yaml")
		if want := "gizmo.conversion.example.com/big created"; strings.TrimSpace(out) != want {
			t.Errorf("kubectl create printed %q, want %q", out, want)
		}
		if got := hook.took(); len(got) == 0 || got[0] != "conversion.example.com/v1 x1" {
			t.Errorf("reviews %q, want the create converted to the storage version v1 first", got)
		}
	})

	step(t, "read in v1 and v2", func(t *testing.T) {
		got := s.MustKubectl(t, "get", "gizmos.v1.conversion.example.com", "big", "-n", "gizmos", "-o", "jsonpath={.apiVersion} {.spec}")
		if want := `conversion.example.com/v1 {"size":"3"}`; got != want {
			t.Errorf("v1 read %q, want %q", got, want)
		}
		if got := hook.took(); len(got) != 0 {
			t.Errorf("reading the storage version called the webhook: %q", got)
		}
		got = s.MustKubectl(t, "get", "gizmos.v2.conversion.example.com", "big", "-n", "gizmos", "-o", "jsonpath={.apiVersion} {.spec}")
		if want := `conversion.example.com/v2 {"sizeInt":3}`; got != want {
			t.Errorf("v2 read %q, want %q", got, want)
		}
		if got := hook.took(); len(got) != 1 || got[0] != "conversion.example.com/v2 x1" {
			t.Errorf("reviews %q, want one to v2", got)
		}
	})

	step(t, "list in one review", func(t *testing.T) {
		s.MustKubectl(t, "create", "-f", "testdata/crdconversion/gizmos-v1.yaml")
		hook.took()
		got := s.MustKubectl(t, "get", "gizmos.v2.conversion.example.com", "-n", "gizmos", "-o", `jsonpath={range .items[*]}{.metadata.name}={.spec.sizeInt} {end}`)
		if want := "big=3 medium=2 small=1 "; got != want {
			t.Errorf("v2 list %q, want %q", got, want)
		}
		if got := hook.took(); len(got) != 1 || got[0] != "conversion.example.com/v2 x3" {
			t.Errorf("reviews %q, want the list's three objects in one review", got)
		}
	})

	step(t, "webhook stopped", func(t *testing.T) {
		rv := s.MustKubectl(t, "get", "gizmos.v1.conversion.example.com", "big", "-n", "gizmos", "-o", "jsonpath={.metadata.resourceVersion}")
		addr := strings.TrimPrefix(hook.srv.URL, "https://")
		hook.srv.Close()
		failed := `conversion webhook for conversion.example.com/v1, Kind=Gizmo failed: Post "https://` + addr + `/convert?timeout=30s": dial tcp ` + addr + `: connect: connection refused`

		_, errOut, err := s.Kubectl(t, "get", "gizmos.v2.conversion.example.com", "big", "-n", "gizmos")
		want := "Error from server (InternalError): Internal error occurred: StorageError: corrupt object, Code: 7, Key: /conversion.example.com/gizmos/gizmos/big, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=" + rv + ": " + failed
		if err == nil || strings.TrimSpace(errOut) != want {
			t.Errorf("get in v2: err %v, kubectl said\n%s\nwant\n%s", err, errOut, want)
		}

		_, errOut, err = s.Kubectl(t, "get", "gizmos.v2.conversion.example.com", "-n", "gizmos")
		want = "Error from server (StorageReadError): failed to read one or more gizmos.conversion.example.com from the storage: StorageError: corrupt object, Code: 7, Key: /registry/conversion.example.com/gizmos/gizmos/big, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=" + rv + ": " + failed + " (and 2 more)"
		if err == nil || strings.TrimSpace(errOut) != want {
			t.Errorf("list in v2: err %v, kubectl said\n%s\nwant\n%s", err, errOut, want)
		}

		_, errOut, err = s.Kubectl(t, "create", "-f", "testdata/crdconversion/gizmo-late.yaml")
		want = `Error from server: error when creating "testdata/crdconversion/gizmo-late.yaml": ` + strings.Replace(failed, "/v1, Kind", "/v2, Kind", 1)
		if err == nil || strings.TrimSpace(errOut) != want {
			t.Errorf("create in v2: err %v, kubectl said\n%s\nwant\n%s", err, errOut, want)
		}

		// The storage version needs no webhook.
		got := s.MustKubectl(t, "get", "gizmos.v1.conversion.example.com", "-n", "gizmos", "-o", "jsonpath={.items[*].metadata.name}")
		if got != "big medium small" {
			t.Errorf("v1 list %q, want the three gizmos", got)
		}
	})
}

type errString string

func (e errString) Error() string { return string(e) }

package openapi

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestSetCustomConcurrentWithServing replaces the custom resources while
// clients read every document and the resolver resolves (run with -race).
// Each answer must be whole: the index's URLs lead to a document with that
// hash or, when it changed since, redirect; the documents parse.
func TestSetCustomConcurrentWithServing(t *testing.T) {
	d := newTestDocuments(t)
	all := customResources(t, structuralForm, "crontab.yaml", "instance.yaml")
	sets := [][]CustomResource{all, all[:1], nil, all[1:], all}
	mux := http.NewServeMux()
	mux.Handle("/openapi/v2", d.V2Handler())
	mux.Handle("/openapi/v3", d.V3Handler())
	mux.Handle("/openapi/v3/", d.V3Handler())
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	client := srv.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

	fetch := func(path string) (int, []byte) {
		resp, err := client.Get(srv.URL + path)
		if err != nil {
			t.Error(err)
			return 0, nil
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Error(err)
		}
		return resp.StatusCode, body
	}

	done := make(chan struct{})
	var readers sync.WaitGroup
	readers.Add(3)
	go func() { // the v3 index and what it points at
		defer readers.Done()
		for n := 0; ; n++ {
			code, body := fetch("/openapi/v3")
			var index struct {
				Paths map[string]struct {
					ServerRelativeURL string `json:"serverRelativeURL"`
				} `json:"paths"`
			}
			if code != http.StatusOK || json.Unmarshal(body, &index) != nil {
				t.Errorf("index: %d", code)
				return
			}
			for key, e := range index.Paths {
				if !strings.HasPrefix(key, "apis/stable.example.com/") && key != "apis/apps/v1" {
					continue
				}
				code, body := fetch(e.ServerRelativeURL)
				switch code {
				case http.StatusOK:
					sum := sha256.Sum256(body)
					if hash := strings.ToUpper(hex.EncodeToString(sum[:])); !strings.HasSuffix(e.ServerRelativeURL, "hash="+hash) {
						t.Errorf("%s: the document's hash is %s", e.ServerRelativeURL, hash)
					}
				case http.StatusMovedPermanently, http.StatusNotFound: // changed, or gone, since the index
				default:
					t.Errorf("%s: %d", e.ServerRelativeURL, code)
				}
			}
			select {
			case <-done:
				return
			default:
			}
		}
	}()
	go func() { // the v2 document
		defer readers.Done()
		for {
			code, body := fetch("/openapi/v2")
			if code != http.StatusOK || !json.Valid(body) {
				t.Errorf("v2: %d, %d bytes", code, len(body))
				return
			}
			select {
			case <-done:
				return
			default:
			}
		}
	}()
	go func() { // the resolver, as the policy type checker uses it
		defer readers.Done()
		r := d.Resolver()
		for {
			if _, err := r.ResolveSchema(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}); err != nil {
				t.Error(err)
				return
			}
			_, _ = r.ResolveSchema(cronTabGV.WithKind("CronTab")) // served or not, by turns
			select {
			case <-done:
				return
			default:
			}
		}
	}()

	for _, set := range sets {
		if err := d.SetCustom(set); err != nil {
			t.Error(err)
		}
		if _, err := d.build(); err != nil {
			t.Error(err)
		}
	}
	close(done)
	readers.Wait()

	// At rest, the last set is what every document says.
	code, body := fetch("/openapi/v3/apis/stable.example.com/v1")
	if code != http.StatusOK || !strings.Contains(string(body), `"com.example.stable.v1.Instance"`) || !strings.Contains(string(body), `"com.example.stable.v1.CronTab"`) {
		t.Errorf("after the last SetCustom: %d", code)
	}
	if _, body := fetch("/openapi/v2"); !strings.Contains(string(body), `"com.example.stable.v1beta1.CronTab"`) {
		t.Error("v2 lacks the last set")
	}
}

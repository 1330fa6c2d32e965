package rest

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// Patches and applies that carry no resourceVersion apply to whatever is
// stored when they run: kube-apiserver retries them on a conflict, so
// none of many concurrent ones may answer 409. A PUT or patch that names
// a resourceVersion still gets 409 once it is stale.
func TestConcurrentPatches(t *testing.T) {
	ts := newTestServer(t)
	const cm = "/api/v1/namespaces/default/configmaps"
	if r := ts.do("POST", cm, mediaJSON, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"busy"}}`); r.code != 201 {
		t.Fatalf("create: %d %s", r.code, r.body)
	}
	const writers, each = 8, 15
	var wg sync.WaitGroup
	failures := make(chan string, writers*each*2)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				r := ts.do("PATCH", cm+"/busy", mediaMergePatch, fmt.Sprintf(`{"data":{"merge-%d-%d":"v"}}`, w, i))
				if r.code != 200 {
					failures <- fmt.Sprintf("merge patch %d/%d: %d %s", w, i, r.code, r.body)
				}
				apply := fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: busy\ndata:\n  apply-%d: \"%d\"\n", w, i)
				r = ts.do("PATCH", cm+"/busy?fieldManager=writer-"+fmt.Sprint(w), mediaApplyYAML, apply)
				if r.code != 200 {
					failures <- fmt.Sprintf("apply %d/%d: %d %s", w, i, r.code, r.body)
				}
			}
		})
	}
	wg.Wait()
	close(failures)
	for f := range failures {
		t.Error(f)
	}
	r := ts.do("GET", cm+"/busy", "", "")
	var got corev1.ConfigMap
	if err := json.Unmarshal([]byte(r.body), &got); err != nil {
		t.Fatal(err)
	}
	if n := len(got.Data); n != writers*each+writers {
		t.Errorf("the ConfigMap holds %d keys, want %d merged and %d applied", n, writers*each, writers)
	}

	// A stale resourceVersion is still a conflict, for a patch and a PUT.
	stale := `{"metadata":{"resourceVersion":"1"},"data":{"x":"y"}}`
	if r := ts.do("PATCH", cm+"/busy", mediaMergePatch, stale); r.code != 409 {
		t.Errorf("a patch with a stale resourceVersion: %d %s", r.code, r.body)
	}
	put := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"busy","resourceVersion":"1"}}`
	if r := ts.do("PUT", cm+"/busy", mediaJSON, put); r.code != 409 {
		t.Errorf("a PUT with a stale resourceVersion: %d %s", r.code, r.body)
	}
}

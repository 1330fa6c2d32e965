package offline

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// names is "Kind/name" of each object.
func names(objs []*unstructured.Unstructured) []string {
	out := []string{}
	for _, o := range objs {
		out = append(out, o.GetKind()+"/"+o.GetName())
	}
	return out
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadManifests(t *testing.T) {
	dir := t.TempDir()
	rows := []struct {
		name  string
		paths []string
		stdin string
		want  []string
		// wantErr is in the error; the names are not checked then.
		wantErr string
		// bug skips a row of documented behaviour the code does not have yet.
		bug string
	}{{
		name:  "a directory, recursively, in lexical order, other files skipped",
		paths: []string{"testdata/manifests"},
		want:  []string{"Namespace/one", "ConfigMap/two", "ConfigMap/three", "Secret/four", "ServiceAccount/five"},
	}, {
		name:  "files in the order given",
		paths: []string{"testdata/manifests/sub/c.yml", "testdata/manifests/a.yaml"},
		want:  []string{"ServiceAccount/five", "Namespace/one", "ConfigMap/two"},
	}, {
		name:  "a JSON List is expanded",
		paths: []string{"testdata/manifests/b.json"},
		want:  []string{"ConfigMap/three", "Secret/four"},
	}, {
		name:  "a YAML List of another kind is expanded",
		paths: []string{writeFile(t, dir, "list.yaml", "apiVersion: v1\nkind: ConfigMapList\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: x}}\n")},
		want:  []string{"ConfigMap/x"},
	}, {
		name:  "stdin",
		paths: []string{"-"},
		stdin: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: in}\n",
		want:  []string{"ConfigMap/in"},
	}, {
		name:  "empty documents and null",
		paths: []string{writeFile(t, dir, "empty.yaml", "---\n\n---\n# only a comment\n---\nnull\n---\n")},
		want:  []string{},
	}, {
		name:    "no kind, named by file and document",
		paths:   []string{writeFile(t, dir, "nokind.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok}\n---\napiVersion: v1\nmetadata: {name: bad}\n")},
		wantErr: "nokind.yaml: document 2: ",
	}, {
		name:    "bad YAML, named by file",
		paths:   []string{writeFile(t, dir, "bad.yaml", "apiVersion: v1\nkind: [unclosed\n")},
		wantErr: "bad.yaml: ",
	}, {
		name:    "a document that is not an object",
		paths:   []string{writeFile(t, dir, "scalar.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok}\n---\n---\n- a\n- b\n")},
		wantErr: "scalar.yaml: document 2: ",
	}, {
		name:    "a bad item of a List",
		paths:   []string{writeFile(t, dir, "badlist.yaml", "apiVersion: v1\nkind: List\nitems:\n- {metadata: {name: x}}\n")},
		wantErr: "badlist.yaml: document 1: ",
	}, {
		name:    "stdin errors are named stdin",
		paths:   []string{"-"},
		stdin:   "kind: ConfigMap\n",
		wantErr: "stdin: document 1: ",
	}, {
		name:    "missing file",
		paths:   []string{filepath.Join(dir, "nowhere.yaml")},
		wantErr: "nowhere.yaml",
	}}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			if row.bug != "" {
				t.Skip("known bug: " + row.bug)
			}
			got, err := ReadManifests(row.paths, strings.NewReader(row.stdin))
			if row.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), row.wantErr) {
					t.Fatalf("want an error containing %q, got %v (objects %q)", row.wantErr, err, names(got))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(row.want, names(got)); diff != "" {
				t.Errorf("objects (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadManifestsMissingIsNotExist(t *testing.T) {
	_, err := ReadManifests([]string{filepath.Join(t.TempDir(), "nowhere")}, nil)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("want fs.ErrNotExist, got %v", err)
	}
}

func TestReadManifestsDocumentLimit(t *testing.T) {
	big := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n  k: " + strings.Repeat("x", maxDocument) + "\n"
	_, err := ReadManifests([]string{"-"}, strings.NewReader(big))
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("want the document limit, got %v", err)
	}
}

// hangAfter is how long an input may take before the fuzz test calls it a
// hang: far more than any input of a fuzzer's size needs.
const hangAfter = 30 * time.Second

// FuzzManifests feeds untrusted bytes to ReadManifests and RequestsFrom:
// neither may panic or hang, and an answer is either objects or an error.
func FuzzManifests(f *testing.F) {
	for _, seed := range []string{
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
		"---\n---\nnull\n",
		`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}]}`,
		"apiVersion: portcullis.dev/v1alpha1\nkind: AdmissionRequest\nmetadata: {name: r}\noperation: DELETE\nresource: pods\nobjectName: web\nuser: {name: alice, groups: [a]}\n",
		"apiVersion: portcullis.dev/v1alpha1\nkind: AdmissionRequest\nmetadata: {name: r}\nobject: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}\nbogus: 1\n",
		"a: &a [*a, *a]\nb: *a\n",
		"apiVersion: v1\nkind: List\nitems: 3\n",
		"- 1\n- 2\n",
		"\xff\xfe\x00",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		done := make(chan struct{})
		go func() {
			defer close(done)
			objs, err := ReadManifests([]string{"-"}, strings.NewReader(string(data)))
			if err != nil {
				return
			}
			for _, o := range objs {
				if o == nil {
					t.Error("a nil object")
				}
			}
			reqs, err := RequestsFrom(objs, Request{User: &User{Name: "alice"}})
			if err != nil {
				return
			}
			for i := range reqs {
				_ = reqs[i].Validate()
			}
		}()
		select {
		case <-done:
		case <-time.After(hangAfter):
			t.Fatalf("no answer within %s for %q", hangAfter, data)
		}
	})
}

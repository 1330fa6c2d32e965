package manifest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func writeDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func keys(s *Set) []string {
	var out []string
	for _, o := range s.Objects {
		out = append(out, Key(o))
	}
	return out
}

const (
	vap = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: %s
spec:
  validations:
  - expression: "true"
`
	vapb = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: %s
spec:
  policyName: %s
  validationActions: [Deny]
`
	vwh = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: %s
webhooks:
- name: w.example.com
  clientConfig:
    %s
  admissionReviewVersions: [v1]
  sideEffects: None
`
)

func sprintf(format string, a ...any) string {
	r := format
	for _, v := range a {
		r = strings.Replace(r, "%s", v.(string), 1)
	}
	return r
}

func TestLoadExamples(t *testing.T) {
	tests := []struct {
		dir    string
		plugin Kind
		want   []string
	}{
		{"testdata/vap", ValidatingAdmissionPolicy, []string{
			"ValidatingAdmissionPolicy/example-deny-privileged.static.k8s.io",
			"ValidatingAdmissionPolicyBinding/example-deny-privileged-binding.static.k8s.io",
			"ValidatingAdmissionPolicy/example-require-labels.static.k8s.io",
			"ValidatingAdmissionPolicyBinding/example-require-labels-binding.static.k8s.io",
			"ValidatingAdmissionPolicy/example-protect-admission-resources.static.k8s.io",
			"ValidatingAdmissionPolicyBinding/example-protect-admission-resources-binding.static.k8s.io",
		}},
		{"testdata/webhook", ValidatingAdmissionWebhook, []string{
			"ValidatingWebhookConfiguration/example-security-webhook.static.k8s.io",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			abs, _ := filepath.Abs(tt.dir)
			set, err := Load(abs, tt.plugin, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(keys(set), "\n"); got != strings.Join(tt.want, "\n") {
				t.Fatalf("got\n%s\nwant\n%s", got, strings.Join(tt.want, "\n"))
			}
			if !strings.HasPrefix(set.Hash, "sha256:") || len(set.Hash) != 7+64 {
				t.Fatalf("hash %q", set.Hash)
			}
		})
	}
}

func TestLoadAccepts(t *testing.T) {
	tests := []struct {
		name   string
		plugin Kind
		files  map[string]string
		want   []string
	}{
		{"empty dir", ValidatingAdmissionPolicy, nil, nil},
		{"ignored files, subdirs, empty docs", ValidatingAdmissionPolicy, map[string]string{
			"a.txt":        "garbage",
			"sub/b.yaml":   "garbage",
			"c.yaml":       "",
			"d.YML":        "# only a comment\n---\n\n---\n" + sprintf(vap, "d.static.k8s.io") + "---\n",
			"noext":        "garbage",
			"e.yaml.bak":   "garbage",
			"f.Json":       `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"f.static.k8s.io"},"spec":{"validations":[{"expression":"true"}]}}`,
			"dir.yaml/x.y": "",
		}, []string{"ValidatingAdmissionPolicy/d.static.k8s.io", "ValidatingAdmissionPolicy/f.static.k8s.io"}},
		{"file name order then document order", ValidatingAdmissionPolicy, map[string]string{
			"b.yaml": sprintf(vap, "z.static.k8s.io") + "---\n" + sprintf(vap, "y.static.k8s.io"),
			"a.yaml": sprintf(vapb, "x.static.k8s.io", "y.static.k8s.io"),
		}, []string{"ValidatingAdmissionPolicyBinding/x.static.k8s.io", "ValidatingAdmissionPolicy/z.static.k8s.io", "ValidatingAdmissionPolicy/y.static.k8s.io"}},
		{"same name different kinds", ValidatingAdmissionPolicy, map[string]string{
			"a.yaml": sprintf(vap, "p.static.k8s.io") + "---\n" + sprintf(vapb, "p.static.k8s.io", "p.static.k8s.io"),
		}, []string{"ValidatingAdmissionPolicy/p.static.k8s.io", "ValidatingAdmissionPolicyBinding/p.static.k8s.io"}},
		{"typed list", ValidatingAdmissionPolicy, map[string]string{
			"a.yaml": `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyList
items:
- metadata: {name: a.static.k8s.io}
  spec: {validations: [{expression: "true"}]}
- metadata: {name: b.static.k8s.io}
  spec: {validations: [{expression: "true"}]}
`,
		}, []string{"ValidatingAdmissionPolicy/a.static.k8s.io", "ValidatingAdmissionPolicy/b.static.k8s.io"}},
		{"nested v1 List", MutatingAdmissionWebhook, map[string]string{
			"a.json": `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"List","items":[
{"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingWebhookConfiguration","metadata":{"name":"m.static.k8s.io"},
 "webhooks":[{"name":"m.example.com","clientConfig":{"url":"https://127.0.0.1:1/m"},"admissionReviewVersions":["v1"],"sideEffects":"None"}]}]}]}`,
		}, []string{"MutatingWebhookConfiguration/m.static.k8s.io"}},
		{"MAP", MutatingAdmissionPolicy, map[string]string{
			"a.yaml": `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: m.static.k8s.io}
spec:
  mutations: [{patchType: ApplyConfiguration, applyConfiguration: {expression: "Object{}"}}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: mb.static.k8s.io}
spec: {policyName: m.static.k8s.io}
`,
		}, []string{"MutatingAdmissionPolicy/m.static.k8s.io", "MutatingAdmissionPolicyBinding/mb.static.k8s.io"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, err := Load(writeDir(t, tt.files), tt.plugin, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(keys(set), "\n"); got != strings.Join(tt.want, "\n") {
				t.Fatalf("got\n%s\nwant\n%s", got, strings.Join(tt.want, "\n"))
			}
			if len(tt.want) == 0 && set.Hash != "" {
				t.Fatalf("hash of an empty configuration: %q", set.Hash)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name   string
		plugin Kind
		files  map[string]string
		is     error
		want   []string // substrings of the error
	}{
		{"name suffix", ValidatingAdmissionPolicy, map[string]string{"a.yaml": sprintf(vap, "plain")},
			ErrName, []string{"a.yaml: document 1: ValidatingAdmissionPolicy \"plain\": metadata.name: invalid name: \"plain\" must end with \".static.k8s.io\""}},
		{"missing name", ValidatingAdmissionPolicy, map[string]string{"a.yaml": strings.Replace(sprintf(vap, "x"), "  name: x\n", "  labels: {}\n", 1)},
			ErrName, []string{"metadata.name: invalid name: a static manifest object must have a name"}},
		{"duplicate across files", ValidatingAdmissionPolicy, map[string]string{
			"a.yaml": sprintf(vap, "p.static.k8s.io"), "b.yaml": "---\n" + sprintf(vap, "p.static.k8s.io")},
			ErrDuplicateName, []string{"b.yaml: document 1: ValidatingAdmissionPolicy \"p.static.k8s.io\": metadata.name: duplicate name \"p.static.k8s.io\": also defined in ", "a.yaml document 1"}},
		{"duplicate in a list", ValidatingAdmissionPolicy, map[string]string{
			"a.yaml": "apiVersion: v1\nkind: List\nitems:\n- " + strings.ReplaceAll(sprintf(vap, "p.static.k8s.io"), "\n", "\n  ") + "\n- " + strings.ReplaceAll(sprintf(vap, "p.static.k8s.io"), "\n", "\n  ")},
			ErrDuplicateName, []string{"a.yaml: document 1 items[1]: ValidatingAdmissionPolicy", "also defined in", "a.yaml document 1 items[0]"}},
		{"unknown field", ValidatingAdmissionPolicy, map[string]string{"a.yaml": sprintf(vap, "p.static.k8s.io") + "  bogus: 1\n"},
			ErrStrictDecoding, []string{`a.yaml: document 1: ValidatingAdmissionPolicy "": strict decoding error: unknown field "spec.bogus"`}},
		{"duplicate field yaml", ValidatingAdmissionPolicy, map[string]string{"a.yaml": sprintf(vap, "p.static.k8s.io") + "metadata: {name: q.static.k8s.io}\n"},
			ErrStrictDecoding, []string{"a.yaml: document 1: strict decoding error", `"metadata" already set`}},
		{"duplicate field json", ValidatingAdmissionPolicy, map[string]string{"a.json": `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"a.static.k8s.io","name":"b.static.k8s.io"}}`},
			ErrStrictDecoding, []string{"a.json: document 1: strict decoding error"}},
		{"unknown field in list item", ValidatingAdmissionPolicy, map[string]string{"a.yaml": "apiVersion: v1\nkind: List\nitems:\n- apiVersion: admissionregistration.k8s.io/v1\n  kind: ValidatingAdmissionPolicy\n  metadata: {name: a.static.k8s.io}\n  nope: 1\n"},
			ErrStrictDecoding, []string{`a.yaml: document 1 items[0]: ValidatingAdmissionPolicy "": strict decoding error: unknown field "nope"`}},
		{"wrong version", ValidatingAdmissionPolicy, map[string]string{"a.yaml": strings.Replace(sprintf(vap, "p.static.k8s.io"), "/v1\n", "/v1beta1\n", 1)},
			ErrUnsupportedVersion, []string{`a.yaml: document 1: ValidatingAdmissionPolicy "": unsupported apiVersion "admissionregistration.k8s.io/v1beta1": apiVersion: only admissionregistration.k8s.io/v1 is supported`}},
		{"kind of another plugin", MutatingAdmissionPolicy, map[string]string{"a.yaml": "---\n" + sprintf(vap, "p.static.k8s.io")},
			ErrUnsupportedKind, []string{`a.yaml: document 1: ValidatingAdmissionPolicy "": unsupported kind "ValidatingAdmissionPolicy": kind: the MutatingAdmissionPolicy plugin accepts only MutatingAdmissionPolicy, MutatingAdmissionPolicyBinding (or v1 List)`}},
		{"foreign kind in v1 List", ValidatingAdmissionWebhook, map[string]string{"a.yaml": "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n"},
			ErrUnsupportedVersion, []string{`document 1 items[0]: ConfigMap ""`}},
		{"missing kind", ValidatingAdmissionPolicy, map[string]string{"a.yaml": "apiVersion: admissionregistration.k8s.io/v1\n"},
			ErrSyntax, []string{"a.yaml: document 1: malformed document: apiVersion and kind must be set"}},
		{"not an object", ValidatingAdmissionPolicy, map[string]string{"a.yaml": sprintf(vap, "a.static.k8s.io") + "---\n- 1\n"},
			ErrSyntax, []string{"a.yaml: document 2: malformed document: a document must be an object"}},
		{"bad yaml", ValidatingAdmissionPolicy, map[string]string{"a.yaml": "a: [\n"},
			ErrSyntax, []string{"a.yaml: document 1: malformed document"}},
		{"webhook service", ValidatingAdmissionWebhook, map[string]string{"a.yaml": sprintf(vwh, "w.static.k8s.io", "service: {name: svc, namespace: ns}")},
			ErrRestricted, []string{`a.yaml: document 1: ValidatingWebhookConfiguration "w.static.k8s.io": webhooks[0].clientConfig.service: not supported for static manifests; use clientConfig.url instead (webhook "w.example.com")`}},
		{"webhook no url", ValidatingAdmissionWebhook, map[string]string{"a.yaml": sprintf(vwh, "w.static.k8s.io", "caBundle: Cg==")},
			ErrURLRequired, []string{`webhooks[0].clientConfig.url: required for static manifests (webhook "w.example.com")`}},
		{"policy paramKind", ValidatingAdmissionPolicy, map[string]string{"a.yaml": sprintf(vap, "p.static.k8s.io") + "  paramKind: {apiVersion: v1, kind: ConfigMap}\n"},
			ErrRestricted, []string{`ValidatingAdmissionPolicy "p.static.k8s.io": spec.paramKind: not supported for static manifests`}},
		{"binding paramRef", ValidatingAdmissionPolicy, map[string]string{"a.yaml": sprintf(vap, "p.static.k8s.io") + "---\n" + sprintf(vapb, "b.static.k8s.io", "p.static.k8s.io") + "  paramRef: {name: x}\n"},
			ErrRestricted, []string{`a.yaml: document 2: ValidatingAdmissionPolicyBinding "b.static.k8s.io": spec.paramRef: not supported for static manifests`}},
		{"binding policyName suffix", ValidatingAdmissionPolicy, map[string]string{"a.yaml": sprintf(vapb, "b.static.k8s.io", "api-policy")},
			ErrName, []string{`spec.policyName: invalid name: "api-policy" must end with ".static.k8s.io"`}},
		{"binding policy missing", ValidatingAdmissionPolicy, map[string]string{"a.yaml": sprintf(vapb, "b.static.k8s.io", "gone.static.k8s.io")},
			ErrPolicyNotFound, []string{`a.yaml: document 1: ValidatingAdmissionPolicyBinding "b.static.k8s.io": spec.policyName: policy not found in the manifest directory: ValidatingAdmissionPolicy "gone.static.k8s.io"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(writeDir(t, tt.files), tt.plugin, nil)
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, tt.is) {
				t.Errorf("error %v is not %v", err, tt.is)
			}
			var le *LoadError
			if !errors.As(err, &le) {
				t.Errorf("error %v is not a *LoadError", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n%v\ndoes not contain\n%s", err, w)
				}
			}
		})
	}
}

func TestLoadReportsEveryProblem(t *testing.T) {
	dir := writeDir(t, map[string]string{
		"a.yaml": sprintf(vap, "one") + "---\n" + sprintf(vap, "two"),
		"b.yaml": "kind: x\n",
	})
	_, err := Load(dir, ValidatingAdmissionPolicy, nil)
	for _, w := range []string{`"one"`, `"two"`, "b.yaml: document 1"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v lacks %s", err, w)
		}
	}
}

func TestLoadCallsValidate(t *testing.T) {
	dir := writeDir(t, map[string]string{"a.yaml": sprintf(vap, "p.static.k8s.io")})
	validate := func(obj runtime.Object) field.ErrorList {
		p := obj.(*admissionv1.ValidatingAdmissionPolicy)
		fail := admissionv1.Fail
		p.Spec.FailurePolicy = &fail // defaulting happens in place
		return field.ErrorList{field.Required(field.NewPath("spec", "matchConstraints"), "must be set")}
	}
	_, err := Load(dir, ValidatingAdmissionPolicy, validate)
	if !errors.Is(err, ErrInvalidObject) || !strings.Contains(err.Error(), `a.yaml: document 1: ValidatingAdmissionPolicy "p.static.k8s.io": invalid object: spec.matchConstraints: Required value: must be set`) {
		t.Fatalf("got %v", err)
	}
	set, err := Load(dir, ValidatingAdmissionPolicy, func(obj runtime.Object) field.ErrorList {
		validate(obj)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if fp := set.Objects[0].(*admissionv1.ValidatingAdmissionPolicy).Spec.FailurePolicy; fp == nil || *fp != admissionv1.Fail {
		t.Fatal("defaults applied by validate were lost")
	}
}

func TestLoadBadInput(t *testing.T) {
	if _, err := Load(t.TempDir(), Kind("Nope"), nil); !errors.Is(err, ErrUnknownPlugin) {
		t.Errorf("unknown plugin: %v", err)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing"), ValidatingAdmissionPolicy, nil); !errors.Is(err, ErrRead) {
		t.Errorf("missing dir: %v", err)
	}
}

func TestHash(t *testing.T) {
	// sha256 of "a\x00b\x00": each non-empty file followed by a zero byte, in name order.
	dir := writeDir(t, map[string]string{"2.yaml": "b", "1.yml": "a", "0.json": "", "x.txt": "c"})
	got, err := Hash(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := "sha256:8fb20ef63ced4145fc2e983ffe597d1dcff39154c3bf21f0fa9dde6a0c50fdc9"; got != want {
		t.Fatalf("hash %s, want %s", got, want)
	}
}

func TestDiff(t *testing.T) {
	a := writeDir(t, map[string]string{"a.yaml": sprintf(vap, "p.static.k8s.io") + "---\n" + sprintf(vap, "q.static.k8s.io")})
	b := writeDir(t, map[string]string{"a.yaml": strings.Replace(sprintf(vap, "p.static.k8s.io"), `"true"`, `"false"`, 1) + "---\n" + sprintf(vap, "r.static.k8s.io")})
	sa, err := Load(a, ValidatingAdmissionPolicy, nil)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := Load(b, ValidatingAdmissionPolicy, nil)
	if err != nil {
		t.Fatal(err)
	}
	up, del := Diff(sa, sb)
	if len(up) != 2 || Key(up[0]) != "ValidatingAdmissionPolicy/p.static.k8s.io" || Key(up[1]) != "ValidatingAdmissionPolicy/r.static.k8s.io" {
		t.Errorf("upserts %v", up)
	}
	if len(del) != 1 || Key(del[0]) != "ValidatingAdmissionPolicy/q.static.k8s.io" {
		t.Errorf("deletes %v", del)
	}
	if up, del := Diff(sb, sb); len(up)+len(del) != 0 {
		t.Errorf("no-op diff: %v %v", up, del)
	}
	if up, _ := Diff(nil, sb); len(up) != 2 {
		t.Errorf("initial diff: %v", up)
	}
}

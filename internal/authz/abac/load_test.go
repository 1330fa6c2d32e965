package abac

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// notObject is the tail of the error for a line that is JSON but not an
// object.
const notObject = `couldn't get version/kind; json parse error: json: cannot unmarshal %s into Go value of type struct { APIVersion string "json:\"apiVersion,omitempty\""; Kind string "json:\"kind,omitempty\"" }`

// TestParseErrors: every error text was taken from kube-apiserver v1.37.2
// started with --authorization-policy-file holding that content.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		content string
		want    string
	}{
		{
			name:    "v1beta1 without kind is retried as v0 and cannot convert",
			content: `{"apiVersion":"abac.authorization.kubernetes.io/v1beta1"}`,
			want:    `error reading policy file policy.jsonl, line 1: {"apiVersion":"abac.authorization.kubernetes.io/v1beta1"}: converting (v1beta1.Policy) to (v0.Policy): unknown conversion`,
		},
		{
			name:    "unknown kind in the group",
			content: "# c\n\n" + `{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Foo"}`,
			want:    `error reading policy file policy.jsonl, line 3: {"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Foo"}: no kind "Foo" is registered for version "abac.authorization.kubernetes.io/v1beta1" in scheme "pkg/runtime/scheme.go:111"`,
		},
		{
			name:    "kind is case-sensitive",
			content: `{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"policy"}`,
			want:    `error reading policy file policy.jsonl, line 1: {"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"policy"}: no kind "policy" is registered for version "abac.authorization.kubernetes.io/v1beta1" in scheme "pkg/runtime/scheme.go:111"`,
		},
		{
			name:    "other group",
			content: `{"apiVersion":"v1","kind":"Policy"}`,
			want:    `error reading policy file policy.jsonl, line 1: {"apiVersion":"v1","kind":"Policy"}: no kind "Policy" is registered for version "v1" in scheme "pkg/runtime/scheme.go:111"`,
		},
		{
			name:    "unknown version",
			content: `{"apiVersion":"abac.authorization.kubernetes.io/v2","kind":"Policy"}`,
			want:    `error reading policy file policy.jsonl, line 1: {"apiVersion":"abac.authorization.kubernetes.io/v2","kind":"Policy"}: no kind "Policy" is registered for version "abac.authorization.kubernetes.io/v2" in scheme "pkg/runtime/scheme.go:111"`,
		},
		{
			name:    "group without version",
			content: `{"apiVersion":"abac.authorization.kubernetes.io","kind":"Policy"}`,
			want:    `error reading policy file policy.jsonl, line 1: {"apiVersion":"abac.authorization.kubernetes.io","kind":"Policy"}: no kind "Policy" is registered for version "abac.authorization.kubernetes.io" in scheme "pkg/runtime/scheme.go:111"`,
		},
		{
			name:    "malformed apiVersion",
			content: `{"apiVersion":"a/b/c","kind":"Policy"}`,
			want:    `error reading policy file policy.jsonl, line 1: {"apiVersion":"a/b/c","kind":"Policy"}: unexpected GroupVersion string: a/b/c`,
		},
		{
			name:    "v1beta1 field of the wrong type",
			content: `{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"readonly":"yes"}}`,
			want:    `error reading policy file policy.jsonl, line 1: {"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"readonly":"yes"}}: json: cannot unmarshal string into Go struct field PolicySpec.spec.readonly of type bool`,
		},
		{
			name:    "duplicate field, the bad one is seen",
			content: `{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"readonly":true,"readonly":"x"}}`,
			want:    `error reading policy file policy.jsonl, line 1: {"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"readonly":true,"readonly":"x"}}: json: cannot unmarshal string into Go struct field PolicySpec.spec.readonly of type bool`,
		},
		{
			name:    "spec not an object",
			content: `{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":5}`,
			want:    `error reading policy file policy.jsonl, line 1: {"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":5}: json: cannot unmarshal number into Go struct field Policy.spec of type v1beta1.PolicySpec`,
		},
		{
			name:    "v0 user of the wrong type",
			content: `{"user":5}`,
			want:    `error reading policy file policy.jsonl, line 1: {"user":5}: json: cannot unmarshal number into Go struct field Policy.user of type string`,
		},
		{
			name:    "v0 readonly of the wrong type",
			content: `{"user":"a","readonly":1}`,
			want:    `error reading policy file policy.jsonl, line 1: {"user":"a","readonly":1}: json: cannot unmarshal number into Go struct field Policy.readonly of type bool`,
		},
		{
			name:    "apiVersion of the wrong type",
			content: `{"apiVersion":5}`,
			want:    `error reading policy file policy.jsonl, line 1: {"apiVersion":5}: couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field .apiVersion of type string`,
		},
		{
			name:    "kind of the wrong type",
			content: `{"kind":5}`,
			want:    `error reading policy file policy.jsonl, line 1: {"kind":5}: couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string`,
		},
		{
			name:    "not JSON, read as a YAML string",
			content: `not json`,
			want:    `error reading policy file policy.jsonl, line 1: not json: ` + strings.Replace(notObject, "%s", "string", 1),
		},
		{
			name:    "a JSON string",
			content: `"str"`,
			want:    `error reading policy file policy.jsonl, line 1: "str": ` + strings.Replace(notObject, "%s", "string", 1),
		},
		{
			name:    "a JSON array",
			content: `[1,2]`,
			want:    `error reading policy file policy.jsonl, line 1: [1,2]: ` + strings.Replace(notObject, "%s", "array", 1),
		},
		{
			name:    "a YAML sequence",
			content: `- a`,
			want:    `error reading policy file policy.jsonl, line 1: - a: ` + strings.Replace(notObject, "%s", "array", 1),
		},
		{
			name:    "bad YAML",
			content: `abc: [`,
			want:    `error reading policy file policy.jsonl, line 1: abc: [: yaml: line 1: did not find expected node content`,
		},
		{
			name:    "a NUL line",
			content: "{\"user\":\"a\\u0000\"}\n\x00\n",
			want:    "error reading policy file policy.jsonl, line 2: \x00: yaml: control characters are not allowed",
		},
		{
			name:    "YAML flow map starting with a brace is read as JSON",
			content: `{user: a, readonly: yes}`,
			want:    `error reading policy file policy.jsonl, line 1: {user: a, readonly: yes}: couldn't get version/kind; json parse error: invalid character 'u' looking for beginning of object key string`,
		},
		{
			name:    "trailing text",
			content: `{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy"} trailing`,
			want:    `error reading policy file policy.jsonl, line 1: {"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy"} trailing: couldn't get version/kind; json parse error: invalid character 't' after top-level value`,
		},
		{
			name:    "truncated object",
			content: `{`,
			want:    `error reading policy file policy.jsonl, line 1: {: couldn't get version/kind; json parse error: unexpected end of JSON input`,
		},
		{
			name:    "CRLF lines and an indented comment are counted",
			content: "# x\r\n\t# y\r\n{\"user\":\"a\"}\r\n{\"user\":\r\n",
			want:    `error reading policy file policy.jsonl, line 4: {"user":: couldn't get version/kind; json parse error: unexpected end of JSON input`,
		},
		{
			name:    "protobuf magic",
			content: "k8s\x00abc\n",
			want:    "error reading policy file policy.jsonl, line 1: k8s\x00abc: unexpected EOF",
		},
		{
			name:    "a line over 64 KiB",
			content: `{"user":"` + strings.Repeat("a", 70000) + `"}`,
			want:    `error reading policy file policy.jsonl: bufio.Scanner: token too long`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rules, _, err := parse("policy.jsonl", strings.NewReader(tc.content))
			if err == nil {
				t.Fatalf("parse succeeded with %+v, want error %q", rules, tc.want)
			}
			if diff := cmp.Diff(tc.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			var le *LoadError
			if !errors.As(err, &le) {
				t.Errorf("error %T is not a *LoadError", err)
			}
		})
	}
}

// TestParseRules: how each accepted line is understood. The lines that
// look odd (null, YAML, an unknown metadata field) are accepted by
// kube-apiserver v1.37.2 too.
func TestParseRules(t *testing.T) {
	const v1 = `{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":`
	for _, tc := range []struct {
		name       string
		line       string
		want       rule
		wantLegacy bool
	}{
		{
			name: "v1beta1 copied as written",
			line: v1 + `{"user":"u","group":"g","readonly":true,"apiGroup":"apps","resource":"deployments","namespace":"ns","nonResourcePath":"/p"}}`,
			want: rule{User: "u", Group: "g", Readonly: true, APIGroup: "apps", Resource: "deployments", Namespace: "ns", NonResourcePath: "/p"},
		},
		{
			name: "v1beta1 user * is all authenticated users",
			line: v1 + `{"user":"*","resource":"pods"}}`,
			want: rule{Group: "system:authenticated", Resource: "pods"},
		},
		{
			name: "v1beta1 group * replaces the user too",
			line: v1 + `{"user":"alice","group":"*","nonResourcePath":"*"}}`,
			want: rule{Group: "system:authenticated", NonResourcePath: "*"},
		},
		{
			name: "v1beta1 field names are case-sensitive",
			line: v1 + `{"User":"x"}}`,
			want: rule{},
		},
		{
			name: "v1beta1 with surrounding space, kind first and an unknown field",
			line: `  {"kind":"Policy","apiVersion":"abac.authorization.kubernetes.io/v1beta1","metadata":{"name":"x"},"spec":{"user":"a"}} `,
			want: rule{User: "a"},
		},
		{
			name:       "v0 user",
			line:       `{"user":"alice"}`,
			want:       rule{User: "alice", APIGroup: "*", Resource: "*", Namespace: "*", NonResourcePath: "*"},
			wantLegacy: true,
		},
		{
			name:       "v0 without subject is all authenticated users",
			line:       `{"namespace":"ns","resource":"pods","readonly":true}`,
			want:       rule{Group: "system:authenticated", Readonly: true, APIGroup: "*", Resource: "pods", Namespace: "ns"},
			wantLegacy: true,
		},
		{
			name:       "v0 group * drops the user",
			line:       `{"user":"bob","group":"*","namespace":"ns"}`,
			want:       rule{Group: "system:authenticated", APIGroup: "*", Resource: "*", Namespace: "ns"},
			wantLegacy: true,
		},
		{
			name:       "v0 resource without namespace: no paths",
			line:       `{"group":"devs","resource":"pods"}`,
			want:       rule{Group: "devs", APIGroup: "*", Resource: "pods", Namespace: "*"},
			wantLegacy: true,
		},
		{
			name:       "v0 with its kind only",
			line:       `{"kind":"Policy","user":"a"}`,
			want:       rule{User: "a", APIGroup: "*", Resource: "*", Namespace: "*", NonResourcePath: "*"},
			wantLegacy: true,
		},
		{
			name: "v0 with its version is not legacy",
			line: `{"apiVersion":"abac.authorization.kubernetes.io/v0","kind":"Policy","user":"a","resource":"pods"}`,
			want: rule{User: "a", APIGroup: "*", Resource: "pods", Namespace: "*"},
		},
		{
			name:       "v0 ignores a spec",
			line:       `{"apiVersion":"abac.authorization.kubernetes.io/v0","spec":{"user":"x"}}`,
			want:       rule{Group: "system:authenticated", APIGroup: "*", Resource: "*", Namespace: "*", NonResourcePath: "*"},
			wantLegacy: true,
		},
		{
			name:       "empty apiVersion and kind",
			line:       `{"apiVersion":"","kind":""}`,
			want:       rule{Group: "system:authenticated", APIGroup: "*", Resource: "*", Namespace: "*", NonResourcePath: "*"},
			wantLegacy: true,
		},
		{
			name:       "null is an empty legacy rule",
			line:       `null`,
			want:       rule{Group: "system:authenticated", APIGroup: "*", Resource: "*", Namespace: "*", NonResourcePath: "*"},
			wantLegacy: true,
		},
		{
			name:       "YAML",
			line:       `user: alice`,
			want:       rule{User: "alice", APIGroup: "*", Resource: "*", Namespace: "*", NonResourcePath: "*"},
			wantLegacy: true,
		},
		{
			name:       "byte order mark",
			line:       "\xef\xbb\xbf{\"user\":\"a\"}",
			want:       rule{User: "a", APIGroup: "*", Resource: "*", Namespace: "*", NonResourcePath: "*"},
			wantLegacy: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, legacy, err := decodeLine([]byte(tc.line))
			if err != nil {
				t.Fatalf("decodeLine: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("rule (-want +got):\n%s", diff)
			}
			if legacy != tc.wantLegacy {
				t.Errorf("legacy = %v, want %v", legacy, tc.wantLegacy)
			}
		})
	}
}

func TestParseSkipsCommentsAndBlankLines(t *testing.T) {
	content := "# a comment\n\n   \n  # indented comment\n{\"user\":\"a\"}\n\t\n" +
		`{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"group":"g","nonResourcePath":"/x"}}` + "\n"
	rules, legacy, err := parse("policy.jsonl", strings.NewReader(content))
	if err != nil {
		t.Fatal(err)
	}
	want := []rule{
		{User: "a", APIGroup: "*", Resource: "*", Namespace: "*", NonResourcePath: "*"},
		{Group: "g", NonResourcePath: "/x"},
	}
	if diff := cmp.Diff(want, rules); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
	if legacy != 1 {
		t.Errorf("legacy = %d, want 1", legacy)
	}
}

func TestNewErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.jsonl")
	if _, err := New(missing); !errors.Is(err, fs.ErrNotExist) || err.Error() != "open "+missing+": no such file or directory" {
		t.Errorf("New(missing) error = %v, want the open error", err)
	}

	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"user\":\"a\"}\n[]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	want := "error reading policy file " + bad + ", line 2: []: " + strings.Replace(notObject, "%s", "array", 1)
	if _, err := New(bad); err == nil || err.Error() != want {
		t.Errorf("New(bad) error = %v, want %q", err, want)
	}

	// A directory opens; reading it fails, without a line number.
	if _, err := New(dir); err == nil || err.Error() != "error reading policy file "+dir+": read "+dir+": is a directory" {
		t.Errorf("New(directory) error = %v, want the read error", err)
	}

	empty := filepath.Join(dir, "empty.jsonl")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if a, err := New(empty); err != nil || len(a.rules) != 0 {
		t.Errorf("New(empty) = %+v, %v; want no rules and no error", a, err)
	}
}

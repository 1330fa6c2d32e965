package abac

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// FuzzDecodeLine: any line decodes to a rule or fails, never panics; a
// rule always names a subject unless the line was a versioned one that
// names none (legacy lines default theirs), and "*" never survives as a
// subject.
func FuzzDecodeLine(f *testing.F) {
	for _, seed := range []string{
		`{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"user":"a","namespace":"*","resource":"*","apiGroup":"*"}}`,
		`{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"group":"*","nonResourcePath":"/x/*","readonly":true}}`,
		`{"apiVersion":"abac.authorization.kubernetes.io/v1beta1"}`,
		`{"apiVersion":"abac.authorization.kubernetes.io/v0","kind":"Policy","user":"*"}`,
		`{"apiVersion":"v1","kind":"Policy"}`,
		`{"apiVersion":"a/b/c"}`,
		`{"user":5}`, `{"kind":5}`, `{"spec":null}`,
		`user: alice`, `- a`, `abc: [`, "k8s\x00abc", "\xd9\xd9\xf7\xa0",
		`null`, `[]`, `"x"`, `{`, "\xef\xbb\xbf{}", "\x00", ``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		r, legacy, err := decodeLine(line)
		if err != nil {
			if r != (rule{}) {
				t.Fatalf("rule %+v returned with error %v", r, err)
			}
			return
		}
		if r.User == "*" || r.Group == "*" {
			t.Fatalf("wildcard subject survived: %+v", r)
		}
		if legacy && (r.User == "" && r.Group == "" || r.APIGroup != "*" || r.Namespace == "" || r.Resource == "") {
			t.Fatalf("legacy line without its defaults: %+v", r)
		}
	})
}

// FuzzParse: any file loads or fails with a *LoadError, never panics, and
// the line number of an error is that of a line of the file.
func FuzzParse(f *testing.F) {
	f.Add([]byte("# c\n\n{\"user\":\"a\"}\n[]\n"))
	f.Add([]byte("{\"user\":\"a\"}\r\n{\"group\":\"b\",\"readonly\":true}\n"))
	f.Fuzz(func(t *testing.T, content []byte) {
		rules, _, err := parse("p", bytes.NewReader(content))
		if err == nil {
			if n := strings.Count(string(content), "\n") + 1; len(rules) > n {
				t.Fatalf("%d rules from %d lines", len(rules), n)
			}
			return
		}
		var le *LoadError
		if !errors.As(err, &le) {
			t.Fatalf("error %T %v is not a *LoadError", err, err)
		}
		if le.Line > strings.Count(string(content), "\n")+1 {
			t.Fatalf("error on line %d of a file of fewer lines: %v", le.Line, err)
		}
	})
}

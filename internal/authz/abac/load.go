package abac

import (
	"bufio"
	"bytes"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/portcullis/portcullis/internal/authz/abac/v0"
	"github.com/portcullis/portcullis/internal/authz/abac/v1beta1"
)

// scheme knows the two line formats and nothing else, so that a line of
// any other kind or version fails with the not-registered error that makes
// kube-apiserver retry it as a legacy line.
var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	s.AddKnownTypes(v0.SchemeGroupVersion, &v0.Policy{})
	s.AddKnownTypes(v1beta1.SchemeGroupVersion, &v1beta1.Policy{})
	return s
}()

// decoder is apimachinery's universal deserializer (JSON, YAML and the
// binary formats, recognised by content, fields matched case-sensitively,
// unknown fields ignored): the one kube-apiserver reads the file with, so
// lines it accepts are accepted here and lines it refuses fail with its
// words.
var decoder = serializer.NewCodecFactory(scheme).UniversalDeserializer()

// rule is one line of the file in the meaning kube-apiserver gives it once
// both formats are converted to one: "*" in user or group has already
// become group system:authenticated.
type rule struct {
	User            string
	Group           string
	Readonly        bool
	APIGroup        string
	Resource        string
	Namespace       string
	NonResourcePath string
}

// parse reads the file one line at a time. Blank lines and lines whose
// first non-space character is '#' are skipped (but counted). It returns
// the rules in file order and how many lines were in the legacy format.
// Lines longer than bufio.Scanner's 64 KiB default fail, as in
// kube-apiserver.
func parse(path string, r io.Reader) ([]rule, int, error) {
	sc := bufio.NewScanner(r)
	rules := []rule{}
	line, legacy := 0, 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if t := bytes.TrimSpace(b); len(t) == 0 || t[0] == '#' {
			continue
		}
		ru, isLegacy, err := decodeLine(b)
		if err != nil {
			return nil, 0, &LoadError{Path: path, Line: line, Data: bytes.Clone(b), Err: err}
		}
		if isLegacy {
			legacy++
		}
		rules = append(rules, ru)
	}
	if err := sc.Err(); err != nil {
		return nil, 0, &LoadError{Path: path, Line: -1, Err: err}
	}
	return rules, legacy, nil
}

// decodeLine decodes one line. A line that names no kind or no version, or
// a kind and version other than the two known, is retried as a legacy line
// (which fills in the missing kind and version with v0's), as
// kube-apiserver does; legacy reports that.
func decodeLine(b []byte) (r rule, legacy bool, err error) {
	obj, _, err := decoder.Decode(b, nil, nil)
	if err != nil {
		if !runtime.IsMissingVersion(err) && !runtime.IsMissingKind(err) && !runtime.IsNotRegisteredError(err) {
			return rule{}, false, err
		}
		old := &v0.Policy{}
		out, _, err := decoder.Decode(b, nil, old)
		if err != nil {
			return rule{}, true, err
		}
		if out != old {
			// Only a line with the v1beta1 version and no kind gets here:
			// it decodes as v1beta1, and kube-apiserver then fails to
			// convert that to v0. The scheme's converter says so in the
			// same words.
			if err := scheme.Convert(out, old, nil); err != nil {
				return rule{}, true, err
			}
		}
		return fromV0(old), true, nil
	}
	switch p := obj.(type) {
	case *v0.Policy:
		return fromV0(p), false, nil
	case *v1beta1.Policy:
		return fromV1beta1(p), false, nil
	}
	// Unreachable while the scheme knows only the two types.
	return rule{}, false, fmt.Errorf("unrecognized object: %#v", obj)
}

// fromV0 gives a legacy line its meaning: no subject, or "*", is every
// authenticated user; no namespace or resource is all of them, and with
// neither the rule also covers every non-resource path; every API group
// matches.
func fromV0(p *v0.Policy) rule {
	r := rule{
		User:      p.User,
		Group:     p.Group,
		Readonly:  p.Readonly,
		APIGroup:  "*",
		Resource:  p.Resource,
		Namespace: p.Namespace,
	}
	if p.User == "" && p.Group == "" {
		r.Group = user.AllAuthenticated
	}
	if p.User == "*" || p.Group == "*" {
		r.User, r.Group = "", user.AllAuthenticated
	}
	if p.Namespace == "" {
		r.Namespace = "*"
	}
	if p.Resource == "" {
		r.Resource = "*"
	}
	if p.Namespace == "" && p.Resource == "" {
		r.NonResourcePath = "*"
	}
	return r
}

// fromV1beta1: "*" as user or group means every authenticated user (not
// the anonymous one), and replaces the other subject field. A rule without
// user and group matches nobody.
func fromV1beta1(p *v1beta1.Policy) rule {
	r := rule(p.Spec)
	if p.Spec.User == "*" || p.Spec.Group == "*" {
		r.User, r.Group = "", user.AllAuthenticated
	}
	return r
}

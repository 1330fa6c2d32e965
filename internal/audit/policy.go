package audit

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// Policy is a compiled audit policy, ready to evaluate requests against.
// It is immutable and safe for concurrent use.
type Policy struct {
	rules []rule
	// none is the decision for requests no rule matches.
	none Decision
}

// LoadPolicy reads, validates and compiles the audit policy at path
// (--audit-policy-file).
func LoadPolicy(path string) (*Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("audit: reading policy: %w", err)
	}
	p, err := ParsePolicy(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// ParsePolicy decodes an audit.k8s.io/v1 Policy in YAML or JSON strictly:
// unknown fields, duplicate fields and case-mismatched field names are
// errors, unlike kube-apiserver, which falls back to lenient decoding with a
// warning. The policy is then validated and compiled.
func ParsePolicy(data []byte) (*Policy, error) {
	var v1 auditv1.Policy
	if err := decodeStrict(data, &v1); err != nil {
		return nil, err
	}
	if errs := validatePolicy(&v1); len(errs) > 0 {
		return nil, fmt.Errorf("%w: %w", ErrPolicyInvalid, errs.ToAggregate())
	}
	return compilePolicy(&v1), nil
}

// decodeStrict decodes a YAML or JSON document into p and checks that it
// names audit.k8s.io/v1 Policy.
func decodeStrict(data []byte, p *auditv1.Policy) error {
	js := data
	if !json.Valid(data) {
		// YAMLToJSONStrict rejects duplicate keys; JSON goes straight to
		// the JSON decoder, whose errors carry field paths.
		var err error
		if js, err = yaml.YAMLToJSONStrict(data); err != nil {
			return fmt.Errorf("%w: %w", ErrPolicyDecode, err)
		}
	}
	strictErrs, err := kjson.UnmarshalStrict(js, p)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrPolicyDecode, err)
	}
	if len(strictErrs) > 0 {
		return fmt.Errorf("%w: %w", ErrPolicyDecode, errors.Join(strictErrs...))
	}
	gv := auditv1.SchemeGroupVersion.String()
	if p.APIVersion != gv || p.Kind != "Policy" {
		return fmt.Errorf("%w: apiVersion %q, kind %q: want apiVersion %q, kind \"Policy\"",
			ErrPolicyDecode, p.APIVersion, p.Kind, gv)
	}
	return nil
}

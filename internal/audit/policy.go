package audit

import (
	"fmt"
	"os"

	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"

	"github.com/portcullis/portcullis/internal/configfile"
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
	if err := policyFile.Decode(data, &v1); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrPolicyDecode, err)
	}
	if errs := validatePolicy(&v1); len(errs) > 0 {
		return nil, fmt.Errorf("%w: %w", ErrPolicyInvalid, errs.ToAggregate())
	}
	return compilePolicy(&v1), nil
}

// policyFile is what a policy file must declare: kube-apiserver reads
// no other version since v1beta1 was removed.
var policyFile = configfile.Type{Kind: "Policy", Versions: []string{auditv1.SchemeGroupVersion.String()}}

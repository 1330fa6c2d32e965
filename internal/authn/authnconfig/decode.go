package authnconfig

import (
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

const kind = "AuthenticationConfiguration"

// versions are the apiVersions accepted. Their AuthenticationConfiguration
// types have the same fields, so all decode into the v1 type.
var versions = []string{
	apiserverv1.SchemeGroupVersion.String(),
	schema.GroupVersion{Group: apiserverv1.GroupName, Version: "v1beta1"}.String(),
	schema.GroupVersion{Group: apiserverv1.GroupName, Version: "v1alpha1"}.String(),
}

// Decode parses an AuthenticationConfiguration in YAML or JSON strictly:
// unknown fields, duplicate fields and field names in the wrong case are
// errors. It does not validate; see Validate.
func Decode(data []byte) (*apiserverv1.AuthenticationConfiguration, error) {
	if len(strings.TrimSpace(string(data))) == 0 {
		return nil, ErrEmpty
	}
	js, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDecode, err)
	}
	var tm struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(js, &tm); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDecode, err)
	}
	switch {
	case tm.APIVersion == "":
		return nil, fmt.Errorf("%w: apiVersion is missing", ErrDecode)
	case !contains(versions, tm.APIVersion):
		return nil, fmt.Errorf("%w: unsupported apiVersion %q, want one of %s", ErrDecode, tm.APIVersion, strings.Join(versions, ", "))
	case tm.Kind == "":
		return nil, fmt.Errorf("%w: kind is missing", ErrDecode)
	case tm.Kind != kind:
		return nil, fmt.Errorf("%w: expected %s, got %q", ErrDecode, kind, tm.Kind)
	}

	var cfg apiserverv1.AuthenticationConfiguration
	strictErrs, err := sigsjson.UnmarshalStrict(js, &cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDecode, err)
	}
	if len(strictErrs) > 0 {
		msgs := make([]string, len(strictErrs))
		for i, e := range strictErrs {
			msgs[i] = e.Error()
		}
		return nil, fmt.Errorf("%w: %w", ErrDecode, errors.New("strict decoding error: "+strings.Join(msgs, ", ")))
	}
	return &cfg, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

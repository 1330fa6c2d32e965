package config

import (
	"errors"
	"fmt"
	"strings"

	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

const kind = "EncryptionConfiguration"

// apiVersion is the only version kube-apiserver serves this kind in.
var apiVersion = apiserverv1.SchemeGroupVersion.String()

// decode parses an EncryptionConfiguration in YAML or JSON strictly. It
// neither defaults nor validates. Its errors never contain key material.
func decode(data []byte) (*apiserverv1.EncryptionConfiguration, error) {
	if len(strings.TrimSpace(string(data))) == 0 {
		return nil, ErrEmpty
	}
	js, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return nil, decodeError(err, data)
	}
	var tm struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(js, &tm); err != nil {
		return nil, decodeError(err, data)
	}
	switch {
	case tm.APIVersion == "v1" && tm.Kind == "EncryptionConfig":
		// The pre-1.13 form, which an old documentation bug spread;
		// kube-apiserver still reads it as EncryptionConfiguration, so
		// such files carry over.
	case tm.APIVersion == "":
		return nil, fmt.Errorf("%w: apiVersion is missing", ErrDecode)
	case tm.APIVersion != apiVersion:
		return nil, fmt.Errorf("%w: unsupported apiVersion %q, want %s", ErrDecode, tm.APIVersion, apiVersion)
	case tm.Kind == "":
		return nil, fmt.Errorf("%w: kind is missing", ErrDecode)
	case tm.Kind != kind:
		return nil, fmt.Errorf("%w: expected kind %s, got %q", ErrDecode, kind, tm.Kind)
	}

	var cfg apiserverv1.EncryptionConfiguration
	strictErrs, err := sigsjson.UnmarshalStrict(js, &cfg)
	if err != nil {
		return nil, decodeError(err, data)
	}
	if len(strictErrs) > 0 {
		msgs := make([]string, len(strictErrs))
		for i, e := range strictErrs {
			msgs[i] = e.Error()
		}
		return nil, decodeError(errors.New("strict decoding error: "+strings.Join(msgs, ", ")), data)
	}
	return &cfg, nil
}

// decodeError wraps a parser error in ErrDecode after scrubbing it: the
// YAML parser quotes the offending scalar in back quotes (a secret written
// as "!!int c2Vj..." comes back whole), so back-quoted text and any secret
// found by a lenient parse are replaced by REDACTED. The parser's own error
// is not wrapped, so that nothing can print the original text.
func decodeError(err error, data []byte) error {
	return fmt.Errorf("%w: %s", ErrDecode, scrub(err.Error(), data))
}

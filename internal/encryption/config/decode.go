package config

import (
	"errors"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"

	"github.com/portcullis/portcullis/internal/configfile"
)

// fileType is what the file must declare: v1 is the only version
// kube-apiserver serves EncryptionConfiguration in. The pre-1.13 form,
// which an old documentation bug spread, is still read as an
// EncryptionConfiguration by kube-apiserver, so such files carry over.
var fileType = configfile.Type{
	Kind:     "EncryptionConfiguration",
	Versions: []string{apiserverv1.SchemeGroupVersion.String()},
	Legacy:   []metav1.TypeMeta{{APIVersion: "v1", Kind: "EncryptionConfig"}},
}

// decode parses an EncryptionConfiguration in YAML or JSON strictly. It
// neither defaults nor validates. Its errors never contain key material.
func decode(data []byte) (*apiserverv1.EncryptionConfiguration, error) {
	var cfg apiserverv1.EncryptionConfiguration
	if err := fileType.Decode(data, &cfg); err != nil {
		if errors.Is(err, configfile.ErrEmpty) {
			return nil, ErrEmpty
		}
		return nil, decodeError(err, data)
	}
	return &cfg, nil
}

// decodeError wraps a decoding error in ErrDecode after scrubbing it: the
// YAML parser quotes the offending scalar in back quotes (a secret written
// as "!!int c2Vj..." comes back whole), so back-quoted text and any secret
// found by a lenient parse are replaced by REDACTED. The decoder's own
// error is not wrapped, so that nothing can print the original text.
func decodeError(err error, data []byte) error {
	return fmt.Errorf("%w: %s", ErrDecode, scrub(err.Error(), data))
}

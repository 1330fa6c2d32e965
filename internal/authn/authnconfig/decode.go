package authnconfig

import (
	"errors"
	"fmt"

	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"

	"github.com/portcullis/portcullis/internal/configfile"
)

// fileType is what the file must declare. The three versions'
// AuthenticationConfiguration types have the same fields, so all decode
// into the v1 type.
var fileType = configfile.Type{
	Kind: "AuthenticationConfiguration",
	Versions: []string{
		apiserverv1.SchemeGroupVersion.String(),
		apiserverv1.GroupName + "/v1beta1",
		apiserverv1.GroupName + "/v1alpha1",
	},
}

// Decode parses an AuthenticationConfiguration in YAML or JSON strictly:
// unknown fields, duplicate fields and field names in the wrong case are
// errors. It does not validate; see Validate.
func Decode(data []byte) (*apiserverv1.AuthenticationConfiguration, error) {
	var cfg apiserverv1.AuthenticationConfiguration
	if err := fileType.Decode(data, &cfg); err != nil {
		if errors.Is(err, configfile.ErrEmpty) {
			return nil, ErrEmpty
		}
		return nil, fmt.Errorf("%w: %w", ErrDecode, err)
	}
	return &cfg, nil
}

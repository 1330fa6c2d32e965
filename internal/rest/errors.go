package rest

import (
	"encoding/json"
	"errors"
)

var errUnsupportedMediaType = errors.New("unsupported media type")

// jsonUnmarshalStrictless decodes JSON without kind checks.
func jsonUnmarshalStrictless(data []byte, v interface{}) error { return json.Unmarshal(data, v) }

package rest

import "errors"

var errUnsupportedMediaType = errors.New("unsupported media type")

package dispatch

import "errors"

// ErrNotReady is the error of requests that arrive before the policies
// were loaded; kube-apiserver answers them with 403 Forbidden.
var ErrNotReady = errors.New("not yet ready to handle request")

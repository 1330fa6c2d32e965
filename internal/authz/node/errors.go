package node

import "errors"

// ErrMetrics is returned by New when the graph metric cannot be
// registered (usually: registered twice on one registry).
var ErrMetrics = errors.New("node authorizer: registering metrics")

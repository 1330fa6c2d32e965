package leaderelection

import "errors"

// ErrInvalidConfig is wrapped by New's error for a Config it cannot run
// with; the message names every problem.
var ErrInvalidConfig = errors.New("invalid leader election configuration")

// errHeldByOther ends a leader's term: the Lease names another holder.
var errHeldByOther = errors.New("lease held by another holder")

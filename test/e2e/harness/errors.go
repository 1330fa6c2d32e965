package harness

import "errors"

var (
	// errNoReadyLine: a log line is not the server's ready line.
	errNoReadyLine = errors.New("harness: not the ready log line")
	// errBadReadyLine: the ready message without a usable address or kubeconfig.
	errBadReadyLine = errors.New("harness: malformed ready log line")
)

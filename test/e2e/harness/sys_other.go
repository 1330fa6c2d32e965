//go:build !linux

package harness

import "os/exec"

// setProcAttr does nothing here: only Linux can tie a child's life to ours.
func setProcAttr(*exec.Cmd) {}

// lockFile does not lock here; concurrent builds then both build and the
// atomic rename keeps the cache consistent.
func lockFile(string) (unlock func(), err error) { return func() {}, nil }

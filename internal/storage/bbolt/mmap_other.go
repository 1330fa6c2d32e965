//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package bbolt

import "os"

// mapFile reads f on demand for vetting, where this package does not map files.
func mapFile(f *os.File, size int64) (_ file, unmap func() error) {
	return readFile{r: f, n: size}, func() error { return nil }
}

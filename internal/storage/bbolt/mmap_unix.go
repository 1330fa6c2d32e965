//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package bbolt

import (
	"os"
	"syscall"
)

// mapFile maps f for vetting, which then costs no system call per page;
// where the map fails it reads f instead. unmap ends the map.
func mapFile(f *os.File, size int64) (_ file, unmap func() error) {
	if size > 0 && size == int64(int(size)) {
		if b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED); err == nil {
			return mapped(b), func() error { return syscall.Munmap(b) }
		}
	}
	return readFile{r: f, n: size}, func() error { return nil }
}

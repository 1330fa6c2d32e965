package manifest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/portcullis/portcullis/internal/configfile"
)

// file is one manifest file as read from disk.
type file struct {
	path string
	data []byte
}

// readFiles reads the manifest files of dir in name order and hashes them.
// The hash is the reference's: configfile.Hash of every non-empty file's
// contents each followed by a zero byte, so "" for a directory with no
// such content. Reading everything before decoding anything
// is what lets a reload be judged as a whole.
func readFiles(dir string) ([]file, string, error) {
	entries, err := os.ReadDir(dir) // sorted by name
	if err != nil {
		return nil, "", &LoadError{File: dir, Err: fmt.Errorf("%w: %w", ErrRead, err)}
	}
	var files []file
	var all []byte
	for _, e := range entries {
		if !isManifestName(e.Name()) {
			continue
		}
		path := filepath.Join(dir, e.Name())
		// Stat follows symlinks, as ConfigMap mounts are made of them; a
		// directory, even one named like a manifest, is skipped.
		info, err := os.Stat(path)
		if err != nil {
			return nil, "", &LoadError{File: path, Err: fmt.Errorf("%w: %w", ErrRead, err)}
		}
		if info.IsDir() {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, "", &LoadError{File: path, Err: fmt.Errorf("%w: %w", ErrRead, err)}
		}
		if len(data) == 0 {
			continue
		}
		all = append(append(all, data...), 0)
		files = append(files, file{path: path, data: data})
	}
	return files, configfile.Hash(all), nil
}

func isManifestName(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// Hash returns the content hash of dir without decoding it; the watcher
// uses it to skip unchanged directories cheaply.
func Hash(dir string) (string, error) {
	_, h, err := readFiles(dir)
	return h, err
}

package audit

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// backupTimeFormat names rotated files as kube-apiserver's rotation does:
// <name>-<UTC time><ext>, e.g. audit-2024-05-01T10-00-00.000.log.
const backupTimeFormat = "2006-01-02T15-04-05.000"

// maybeRotate rotates the file if writing n more bytes would take it past
// MaxSizeMB. An event larger than the limit is still written, alone in a
// fresh file, rather than dropped. Called with l.mu held.
func (l *Logger) maybeRotate(n int64) error {
	if l.file == nil || l.cfg.MaxSizeMB == 0 {
		return nil
	}
	limit := int64(l.cfg.MaxSizeMB) << 20
	if l.size == 0 || l.size+n <= limit {
		return nil
	}
	return l.rotate()
}

func (l *Logger) rotate() error {
	if err := l.file.Close(); err != nil {
		return fmt.Errorf("audit: rotating log: %w", err)
	}
	l.file, l.out = nil, nil
	if err := os.Rename(l.cfg.Path, l.freeBackupName()); err != nil {
		// Keep logging to the old file rather than losing events.
		if openErr := l.openFile(); openErr != nil {
			return fmt.Errorf("audit: rotating log: %w (reopening: %w)", err, openErr)
		}
		return fmt.Errorf("audit: rotating log: %w", err)
	}
	if err := l.openFile(); err != nil {
		return err
	}
	// Pruning is best effort: a leftover backup does not lose events.
	_ = l.prune()
	return nil
}

func (l *Logger) backupName(t time.Time) string {
	dir, base := filepath.Split(l.cfg.Path)
	ext := filepath.Ext(base)
	return filepath.Join(dir, strings.TrimSuffix(base, ext)+"-"+t.UTC().Format(backupTimeFormat)+ext)
}

// freeBackupName returns a backup name no file has yet: two rotations in
// the same millisecond must not overwrite each other.
func (l *Logger) freeBackupName() string {
	t := l.now()
	for {
		name := l.backupName(t)
		if _, err := os.Lstat(name); err != nil {
			return name
		}
		t = t.Add(time.Millisecond)
	}
}

type backup struct {
	path string
	t    time.Time
}

// backups lists the rotated files of the log, newest first.
func (l *Logger) backups() ([]backup, error) {
	dir, base := filepath.Split(l.cfg.Path)
	if dir == "" {
		dir = "."
	}
	ext := filepath.Ext(base)
	prefix := strings.TrimSuffix(base, ext) + "-"
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []backup
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasPrefix(name, prefix) || !strings.HasSuffix(name, ext) {
			continue
		}
		stamp := strings.TrimSuffix(strings.TrimPrefix(name, prefix), ext)
		t, err := time.Parse(backupTimeFormat, stamp)
		if err != nil {
			continue // not ours
		}
		out = append(out, backup{path: filepath.Join(dir, name), t: t})
	}
	slices.SortFunc(out, func(a, b backup) int { return b.t.Compare(a.t) })
	return out, nil
}

// prune removes backups beyond MaxBackups and those older than MaxAgeDays.
func (l *Logger) prune() error {
	if l.cfg.MaxBackups == 0 && l.cfg.MaxAgeDays == 0 {
		return nil
	}
	bs, err := l.backups()
	if err != nil {
		return err
	}
	cutoff := l.now().Add(-time.Duration(l.cfg.MaxAgeDays) * 24 * time.Hour)
	var errs []error
	for i, b := range bs {
		tooMany := l.cfg.MaxBackups > 0 && i >= l.cfg.MaxBackups
		tooOld := l.cfg.MaxAgeDays > 0 && b.t.Before(cutoff)
		if tooMany || tooOld {
			if err := os.Remove(b.path); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("audit: pruning rotated logs: %v", errs)
	}
	return nil
}

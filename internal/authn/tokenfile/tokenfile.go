package tokenfile

import (
	"context"
	"crypto/sha256"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/portcullis/portcullis/internal/authn"
)

// Authenticator recognises the tokens of one file.
type Authenticator struct {
	users map[[sha256.Size]byte]*user.DefaultInfo
}

var _ authn.Token = (*Authenticator)(nil)

// Load reads the token file at path. Warnings (empty or duplicate tokens)
// go to logger, or slog.Default() when it is nil; tokens are never logged.
func Load(path string, logger *slog.Logger) (*Authenticator, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(f, path, logger)
}

// Parse reads a token file from r; name identifies it in messages.
func Parse(r io.Reader, name string, logger *slog.Logger) (*Authenticator, error) {
	if logger == nil {
		logger = slog.Default()
	}
	reader := csv.NewReader(r)
	reader.FieldsPerRecord = -1 // records may have 3 or more columns
	a := &Authenticator{users: map[[sha256.Size]byte]*user.DefaultInfo{}}
	recordNum := 0
	for {
		record, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("token file '%s': %w", name, err)
		}
		if len(record) < 3 {
			return nil, fmt.Errorf("token file '%s' must have at least 3 columns (token, user name, user uid), found %d: %w", name, len(record), ErrTooFewColumns)
		}
		recordNum++
		if record[0] == "" {
			logger.Warn(fmt.Sprintf("empty token has been found in token file '%s', record number '%d'", name, recordNum))
			continue
		}
		info := &user.DefaultInfo{Name: record[1], UID: record[2]}
		if len(record) >= 4 {
			for _, g := range strings.Split(record[3], ",") {
				// kube-apiserver would keep "" as a group name; it is never
				// a meaningful one.
				if g != "" {
					info.Groups = append(info.Groups, g)
				}
			}
		}
		k := sha256.Sum256([]byte(record[0]))
		if _, dup := a.users[k]; dup {
			logger.Warn(fmt.Sprintf("duplicate token has been found in token file '%s', record number '%d'", name, recordNum))
		}
		a.users[k] = info
	}
	return a, nil
}

// Len returns the number of distinct tokens.
func (a *Authenticator) Len() int { return len(a.users) }

// AuthenticateToken implements authn.Token. Unknown tokens are not
// recognised, so that other authenticators may try them. The returned
// user is shared: callers must not modify it.
func (a *Authenticator) AuthenticateToken(_ context.Context, token string) (user.Info, bool, error) {
	info, ok := a.users[sha256.Sum256([]byte(token))]
	if !ok {
		return nil, false, nil
	}
	return info, true, nil
}

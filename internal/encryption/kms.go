package encryption

import (
	"context"
	"errors"
	"fmt"
	"time"

	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"

	"github.com/portcullis/portcullis/internal/encryption/kmsv2"
)

// kmsEntry is one KMS plugin connection and the poller that follows its
// key id.
type kmsEntry struct {
	cfg     apiserverv1.KMSConfiguration
	p       *kmsv2.Provider
	timeout time.Duration
	cancel  context.CancelFunc // stops the poller; nil until started
	done    chan struct{}      // closed when the poller has returned
}

// same reports whether the entry serves configuration c unchanged. The
// timeout is compared by value: every parse makes a new one.
func (e *kmsEntry) same(c apiserverv1.KMSConfiguration) bool {
	return e.cfg.Name == c.Name && e.cfg.Endpoint == c.Endpoint && e.timeout == kmsTimeout(c)
}

// kmsTimeout is the timeout of each call to the plugin of c.
func kmsTimeout(c apiserverv1.KMSConfiguration) time.Duration {
	if c.Timeout != nil && c.Timeout.Duration > 0 {
		return c.Timeout.Duration
	}
	return defaultKMSTimeout
}

// stop ends the poller and closes the connection.
func (e *kmsEntry) close() {
	if e.cancel != nil {
		e.cancel()
		<-e.done
	}
	_ = e.p.Close()
}

// kmsFor returns the entry of KMS configuration c: the one in use when it
// is unchanged, else a new one recorded in fresh.
func (s *Store) kmsFor(c apiserverv1.KMSConfiguration, running, used map[string]*kmsEntry, fresh *[]*kmsEntry) (*kmsEntry, error) {
	if e := used[c.Name]; e != nil {
		return e, nil
	}
	if e := running[c.Name]; e != nil && e.same(c) {
		used[c.Name] = e
		return e, nil
	}
	if c.APIVersion != "v2" {
		return nil, fmt.Errorf("kms provider %q: apiVersion %q is not supported", c.Name, c.APIVersion)
	}
	timeout := kmsTimeout(c)
	p, err := kmsv2.New(kmsv2.Config{
		Name:        c.Name,
		Endpoint:    c.Endpoint,
		Timeout:     timeout,
		Registerer:  s.opts.Registerer,
		APIServerID: s.opts.APIServerID,
		Logger:      s.log,
	})
	if err != nil {
		return nil, fmt.Errorf("kms provider %q: %w", c.Name, err)
	}
	e := &kmsEntry{cfg: c, p: p, timeout: timeout}
	used[c.Name] = e
	*fresh = append(*fresh, e)
	return e, nil
}

// Check is the kms-providers health check: every KMS plugin of the
// configuration in use answers its Status call healthy. As in
// kube-apiserver, a recent answer is reused (20 s healthy, 3 s not).
func (s *Store) Check(ctx context.Context) error {
	var errs []error
	for _, e := range s.current().kms {
		if err := e.p.Healthz(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// HasKMS reports whether a health check of KMS plugins is due: the
// configuration uses one, or it is reloaded and may come to use one
// (kube-apiserver registers kms-providers in both cases).
func (s *Store) HasKMS() bool {
	return s.opts.AutomaticReload || len(s.current().kms) > 0
}

package kmsv2

import (
	"context"
	"fmt"
	"time"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/uuid"
	kmsapi "k8s.io/kms/apis/v2"
)

// The API versions a plugin may report; v2beta1 is the same API under its
// pre-GA name, which kube-apiserver still accepts.
const (
	apiVersion       = "v2"
	apiVersionBeta1  = "v2beta1"
	healthzOK        = "ok"
	statusCallPrefix = "failed to perform status section of the healthz check"
)

type probeResult struct {
	err error
	at  time.Time
}

// Run polls the plugin's Status until ctx ends or the provider is closed:
// at once, then every HealthyInterval while healthy and every
// UnhealthyInterval while not. A changed key id gets a new seed.
func (p *Provider) Run(ctx context.Context) {
	for {
		if ctx.Err() != nil {
			return
		}
		interval := p.healthyInterval
		if err := p.probe(ctx); err != nil {
			interval = p.unhealthyInterval
		}
		t := time.NewTimer(interval)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-p.stop:
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// Check asks the plugin for its Status once, within the timeout, and
// returns why it is not healthy: an unexpected healthz, an API version
// other than v2, an invalid key id, or a failed rotation to a new key id.
// It rotates like a poll does.
func (p *Provider) Check(ctx context.Context) error {
	return p.probe(ctx)
}

// How long the health endpoints reuse a result, as in kube-apiserver.
const (
	healthzHealthyTTL   = 20 * time.Second
	healthzUnhealthyTTL = 3 * time.Second
)

// Healthz is Check for the health endpoints: a result younger than 20 s
// (3 s when it was a failure) is answered without calling the plugin, as
// kube-apiserver does, so that frequent probes do not load the plugin.
func (p *Provider) Healthz(ctx context.Context) error {
	if r := p.health.Load(); r != nil {
		ttl := healthzHealthyTTL
		if r.err != nil {
			ttl = healthzUnhealthyTTL
		}
		if p.now().Sub(r.at) < ttl {
			return r.err
		}
	}
	return p.probe(ctx)
}

// LastHealth is the result of the last completed poll or Check, without
// calling the plugin.
func (p *Provider) LastHealth() error {
	r := p.health.Load()
	if r == nil {
		return fmt.Errorf("kmsv2 provider %q is %w: %w", p.name, ErrUnhealthy, ErrNotProbed)
	}
	return r.err
}

// probe polls Status and rotates if needed. Callers that queued behind a
// poll take its result: a burst of writes or health checks while the
// plugin is away makes one call at a time, not one each.
func (p *Provider) probe(ctx context.Context) error {
	seen := p.probes.Load()
	p.probeMu.Lock()
	defer p.probeMu.Unlock()
	if p.probes.Load() != seen {
		return p.health.Load().err
	}
	err := p.probeLocked(ctx)
	if ctx.Err() != nil {
		// The caller gave up, not the plugin: remember nothing.
		return err
	}
	prev := p.health.Swap(&probeResult{err: err, at: p.now()})
	p.probes.Add(1)
	switch {
	case err != nil && (prev == nil || prev.err == nil):
		p.log.Error("KMS plugin failed health check probe", "err", err)
	case err == nil && prev != nil && prev.err != nil:
		p.log.Info("KMS plugin is healthy again")
	case err != nil:
		p.log.Debug("KMS plugin still unhealthy", "err", err)
	}
	return err
}

func (p *Provider) probeLocked(ctx context.Context) error {
	callCtx, cancel := context.WithTimeout(ctx, p.timeout)
	resp, err := p.client.Status(callCtx, &kmsapi.StatusRequest{})
	cancel()
	if err != nil {
		return fmt.Errorf("kmsv2 provider %q is %w: %s: %w", p.name, ErrUnhealthy, statusCallPrefix, err)
	}

	var errs []error
	if resp.Healthz != healthzOK {
		errs = append(errs, fmt.Errorf("got unexpected healthz status: %s", resp.Healthz))
	}
	if resp.Version != apiVersion && resp.Version != apiVersionBeta1 {
		errs = append(errs, fmt.Errorf("expected KMSv2 API version %s, got %s", apiVersion, resp.Version))
	} else {
		if p.version == "" {
			p.version = resp.Version
		}
		if p.version != resp.Version {
			errs = append(errs, fmt.Errorf("KMSv2 API version should not change after the initial status response version %s, got %s", p.version, resp.Version))
		}
	}
	if code, err := validateKeyID(resp.KeyId); err != nil {
		p.metrics.invalidKeyID.WithLabelValues(p.name, code).Inc()
		errs = append(errs, fmt.Errorf("got invalid KMSv2 KeyID hash %q: %w", hashIfNotEmpty(resp.KeyId), err))
	} else {
		p.metrics.recordStatusKeyID(hashIfNotEmpty(resp.KeyId))
		// As kube-apiserver does, a plugin that is unhealthy but names a
		// valid key still gets its seed rotated or its lease extended.
		if err := p.rotate(ctx, resp.KeyId); err != nil {
			errs = append(errs, err)
		}
	}
	if err := utilerrors.Reduce(utilerrors.NewAggregate(errs)); err != nil {
		return fmt.Errorf("kmsv2 provider %q is %w: %w", p.name, ErrUnhealthy, err)
	}
	return nil
}

// rotate makes a new seed when statusKeyID is not the seed's key id, and
// otherwise extends the seed's write lease. On failure the current seed
// stays, usable until its lease ends.
func (p *Provider) rotate(ctx context.Context, statusKeyID string) error {
	cur := p.state.Load()
	// The lease starts before the calls: it bounds how long after the
	// plugin's last good answer writes may go on.
	expires := p.now().Add(writeLease)
	if cur != nil && cur.keyID == statusKeyID {
		next := *cur
		next.expires = expires
		p.state.Store(&next)
		return nil
	}

	oldHash := ""
	if cur != nil {
		oldHash = cur.keyIDHash
	}
	next, err := p.newWriteState(ctx, expires)
	if err != nil {
		return fmt.Errorf("failed to rotate DEK seed (status key ID hash %q, current key ID hash %q): %w", hashIfNotEmpty(statusKeyID), oldHash, err)
	}
	if next.keyID != statusKeyID {
		return fmt.Errorf("failed to rotate DEK seed uid=%q: Encrypt returned key ID hash %q, Status returned key ID hash %q", next.uid, next.keyIDHash, hashIfNotEmpty(statusKeyID))
	}
	p.state.Store(next)
	p.cache.put(next.key, next.entry)
	p.log.Info("rotated DEK seed", "uid", next.uid, "newKeyIDHash", next.keyIDHash, "oldKeyIDHash", oldHash,
		"expirationTimestamp", expires.Format(time.RFC3339))
	return nil
}

// newWriteState makes a seed and has the plugin encrypt it.
func (p *Provider) newWriteState(ctx context.Context, expires time.Time) (*writeState, error) {
	start := time.Now()
	seed := newSeed()
	p.metrics.dataKeyGeneration.Observe(time.Since(start).Seconds())

	uid := newUID()
	callCtx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	resp, err := p.client.Encrypt(callCtx, &kmsapi.EncryptRequest{Plaintext: seed, Uid: uid})
	if err != nil {
		return nil, fmt.Errorf("failed to encrypt DEK seed uid=%q: %w", uid, err)
	}
	o := &encryptedObject{
		data:        []byte{0}, // validation wants data; the header has none
		keyID:       resp.KeyId,
		dekSource:   resp.Ciphertext,
		annotations: resp.Annotations,
		sourceType:  sourceHKDFSeed,
	}
	if err := validateObject(o); err != nil {
		return nil, fmt.Errorf("unusable Encrypt response for uid=%q: %w", uid, err)
	}
	keyIDHash := hashIfNotEmpty(resp.KeyId)
	d := &dek{kind: sourceHKDFSeed, seed: seed}
	return &writeState{
		keyID:     resp.KeyId,
		keyIDHash: keyIDHash,
		dek:       d,
		key:       keyOf(sourceHKDFSeed, resp.Ciphertext, resp.KeyId, resp.Annotations),
		entry:     &cacheEntry{dek: d, keyIDHash: keyIDHash},
		header:    appendHeader(nil, o),
		uid:       uid,
		expires:   expires,
	}, nil
}

func newUID() string { return string(uuid.NewUUID()) }

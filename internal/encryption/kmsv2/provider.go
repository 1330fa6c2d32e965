package kmsv2

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/encoding/protowire"
	kmsapi "k8s.io/kms/apis/v2"
)

// PrefixBase starts the prefix of every KMS v2 value.
const PrefixBase = "k8s:enc:kms:v2:"

// gcmOverhead is what AES-GCM adds to a plaintext: nonce and tag.
const gcmOverhead = 12 + 16

// Provider is one KMS v2 provider. It is a value.Transformer; Run keeps
// its key current and must run for writes to keep working.
type Provider struct {
	name              string
	timeout           time.Duration
	healthyInterval   time.Duration
	unhealthyInterval time.Duration
	log               *slog.Logger
	metrics           *metricSet
	now               func() time.Time

	conn   *grpc.ClientConn
	client kmsapi.KeyManagementServiceClient

	// state is what writes use; nil until the plugin first answers.
	state atomic.Pointer[writeState]
	cache *dekCache

	// probeMu serialises Status polls and the rotations they cause.
	probeMu sync.Mutex
	// probes counts the polls that completed, so that callers who waited
	// for one can take its result instead of polling again.
	probes atomic.Uint64
	// version is the first valid API version the plugin reported.
	version string
	// health is the result of the last completed poll.
	health atomic.Pointer[probeResult]

	stop      chan struct{}
	closeOnce sync.Once
}

// writeState is a seed the plugin has encrypted, ready for writes until
// expires.
type writeState struct {
	keyID     string
	keyIDHash string
	dek       *dek
	key       cacheKey
	entry     *cacheEntry
	// header is the encoded EncryptedObject without its data.
	header  []byte
	uid     string
	expires time.Time
}

// New returns a provider that dials the plugin on first use: it neither
// waits for the plugin nor fails when it is not there yet.
func New(cfg Config) (*Provider, error) {
	return newProvider(cfg, time.Now)
}

func newProvider(cfg Config, now func() time.Time) (*Provider, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	addr, err := socketAddress(cfg.Endpoint)
	if err != nil {
		return nil, fmt.Errorf("kmsv2 provider %q: %w", cfg.Name, err)
	}
	m, err := newMetricSet(cfg.Registerer, cfg.Name, cfg.APIServerID)
	if err != nil {
		return nil, fmt.Errorf("kmsv2 provider %q: metrics: %w", cfg.Name, err)
	}
	p := &Provider{
		name:              cfg.Name,
		timeout:           cfg.Timeout,
		healthyInterval:   cfg.HealthyInterval,
		unhealthyInterval: cfg.UnhealthyInterval,
		log:               cfg.Logger.With("provider", cfg.Name),
		metrics:           m,
		now:               now,
		stop:              make(chan struct{}),
	}
	p.cache = newDEKCache(now, m.dekSourceCacheSize.WithLabelValues(cfg.Name))

	// A plugin is a local process: reconnect within half a second of its
	// restart rather than after gRPC's default backoff of up to two
	// minutes, so that a write that polls it finds it. A failed connect
	// to a unix socket costs next to nothing.
	backoffCfg := backoff.DefaultConfig
	backoffCfg.BaseDelay = 100 * time.Millisecond
	backoffCfg.MaxDelay = 500 * time.Millisecond
	p.conn, err = grpc.NewClient("passthrough:///kms-plugin",
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithAuthority("localhost"),
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", addr)
		}),
		grpc.WithConnectParams(grpc.ConnectParams{Backoff: backoffCfg, MinConnectTimeout: cfg.Timeout}),
		// A plugin that is starting or restarting gets the whole timeout
		// to come up, as with kube-apiserver.
		grpc.WithDefaultCallOptions(grpc.WaitForReady(true)),
		grpc.WithChainUnaryInterceptor(m.interceptor()),
	)
	if err != nil {
		return nil, fmt.Errorf("kmsv2 provider %q: failed to create connection to %s: %w", cfg.Name, cfg.Endpoint, err)
	}
	p.client = kmsapi.NewKeyManagementServiceClient(p.conn)
	return p, nil
}

// Prefix is what the chain writes in front of this provider's values.
func (p *Provider) Prefix() string { return PrefixBase + p.name + ":" }

// Close ends Run and the connection to the plugin.
func (p *Provider) Close() error {
	var err error
	p.closeOnce.Do(func() {
		close(p.stop)
		err = p.conn.Close()
	})
	return err
}

// ToStorage encrypts plaintext under a key derived from the current seed,
// bound to dataCtx.
func (p *Provider) ToStorage(ctx context.Context, plaintext, dataCtx []byte) ([]byte, error) {
	st, err := p.writeState(ctx)
	if err != nil {
		return nil, err
	}
	// Keeps the current seed cached for as long as it writes, so that
	// reading what it wrote never costs a Decrypt.
	p.cache.put(st.key, st.entry)

	dataLen := infoSize + gcmOverhead + len(plaintext)
	out := make([]byte, 0, protowire.SizeTag(fieldData)+protowire.SizeBytes(dataLen)+len(st.header))
	out = protowire.AppendTag(out, fieldData, protowire.BytesType)
	out = protowire.AppendVarint(out, uint64(dataLen))
	out, err = st.dek.sealAppend(out, plaintext, dataCtx)
	if err != nil {
		return nil, fmt.Errorf("kmsv2 provider %q: failed to encrypt data: %w", p.name, err)
	}
	out = append(out, st.header...)
	p.metrics.recordKeyID(toStorageLabel, st.keyIDHash)
	return out, nil
}

// FromStorage decrypts a stored EncryptedObject. stale reports a value
// written under another key id than the current one (or with a DEK source
// of the older kind), which a rewrite moves to the current key.
func (p *Provider) FromStorage(ctx context.Context, stored, dataCtx []byte) ([]byte, bool, error) {
	o, err := decodeObject(stored)
	if err != nil {
		return nil, false, fmt.Errorf("kmsv2 provider %q: %w", p.name, err)
	}
	k := keyOf(o.sourceType, o.dekSource, o.keyID, o.annotations)
	e, miss, err := p.cache.getOrLoad(ctx, k, func() (*cacheEntry, error) { return p.decryptDEK(ctx, o) })
	if miss {
		p.metrics.cacheMisses.Inc()
	}
	if err != nil {
		return nil, false, fmt.Errorf("kmsv2 provider %q: %w", p.name, err)
	}
	p.metrics.recordKeyID(fromStorageLabel, e.keyIDHash)
	out, err := e.dek.open(o.data, dataCtx)
	if err != nil {
		return nil, false, fmt.Errorf("kmsv2 provider %q: %w (key ID hash %q): %w", p.name, ErrDecryptData, e.keyIDHash, err)
	}
	stale := false
	// Without a write state the current key is unknown: the value is not
	// called stale, as rewriting it would fail anyway.
	if st := p.state.Load(); st != nil {
		stale = o.keyID != st.keyID || o.sourceType != sourceHKDFSeed
	}
	return out, stale, nil
}

// decryptDEK asks the plugin for the plaintext of a DEK source. It runs
// for every caller that missed the cache at once, so it is not cut short
// by the first caller's cancellation, only by the timeout.
func (p *Provider) decryptDEK(ctx context.Context, o *encryptedObject) (*cacheEntry, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.timeout)
	defer cancel()
	keyIDHash := hashIfNotEmpty(o.keyID)
	resp, err := p.client.Decrypt(ctx, &kmsapi.DecryptRequest{
		Ciphertext:  o.dekSource,
		Uid:         newUID(),
		KeyId:       o.keyID,
		Annotations: o.annotations,
	})
	if err != nil {
		return nil, fmt.Errorf("%w (key ID hash %q): %w", ErrDecryptDEK, keyIDHash, err)
	}
	d, err := newDEK(o.sourceType, resp.Plaintext)
	if err != nil {
		return nil, fmt.Errorf("%w (key ID hash %q): %w", ErrDecryptDEK, keyIDHash, err)
	}
	return &cacheEntry{dek: d, keyIDHash: keyIDHash}, nil
}

// writeState returns the state for a write. Without a usable one it polls
// the plugin once, so that a server started before its plugin writes as
// soon as the plugin answers rather than at the next poll.
func (p *Provider) writeState(ctx context.Context) (*writeState, error) {
	if st := p.state.Load(); st != nil && !p.now().After(st.expires) {
		return st, nil
	}
	probeErr := p.probe(ctx)
	st := p.state.Load()
	now := p.now()
	if st != nil && !now.After(st.expires) {
		return st, nil
	}
	if probeErr == nil {
		probeErr = fmt.Errorf("the last status poll rotated to no usable seed")
	}
	if st == nil {
		return nil, fmt.Errorf("kmsv2 provider %q: %w: the KMS plugin has not yet answered with a valid key ID: %w", p.name, ErrNoWriteKey, probeErr)
	}
	return nil, fmt.Errorf("kmsv2 provider %q: %w: the seed of key ID hash %q expired at %s (current time is %s): %w",
		p.name, ErrNoWriteKey, st.keyIDHash, st.expires.Format(time.RFC3339), now.Format(time.RFC3339), probeErr)
}

package jwt

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"k8s.io/apiserver/pkg/authentication/user"
)

// Options tune how an Authenticator talks to its issuer and checks
// tokens. The zero value gives the defaults.
type Options struct {
	// Client makes every request to the issuer. Nil builds one that trusts
	// the configuration's certificateAuthority, or the system roots.
	Client *http.Client
	// FetchTimeout bounds each discovery, key set and distributed claim
	// request. Default 10s.
	FetchTimeout time.Duration
	// RetryInterval spaces start-up attempts while the issuer is
	// unreachable. Default 10s, as kube-apiserver.
	RetryInterval time.Duration
	// MinRefreshInterval spaces key set fetches triggered by tokens signed
	// with an unknown key (rotation), so that made-up key IDs cannot make
	// the server hammer the issuer. Default 5s.
	MinRefreshInterval time.Duration
	// KeyRefreshInterval is how often the key set is refetched in the
	// background, so that keys the issuer withdrew stop being trusted.
	// Default 10m.
	KeyRefreshInterval time.Duration
	// Leeway is the clock skew allowed for nbf. exp has none, as in
	// kube-apiserver. Default 1m (the go-oidc v2 verifier's, which
	// kube-apiserver uses).
	Leeway time.Duration
	// MaxTokenSize rejects longer tokens before any parsing. Default 64 KiB.
	MaxTokenSize int
	// Now is the clock. Default time.Now.
	Now func() time.Time
	// SigningAlgs, if set, are the only algorithms accepted (kube-apiserver's
	// --oidc-signing-algs); otherwise every allowed asymmetric one is.
	SigningAlgs []string
	// Observe, if set, is told how long each token this authenticator
	// recognised (its issuer's) took to verify and whether it was
	// accepted: kube-apiserver's jwt_authenticator_latency_seconds.
	Observe func(issuer string, success bool, d time.Duration)
	// Logger receives start-up and refresh failures. Tokens and claims are
	// never logged. Default slog.Default().
	Logger *slog.Logger
}

// DefaultMaxTokenSize is the default MaxTokenSize.
const DefaultMaxTokenSize = 64 << 10

func (o Options) withDefaults() Options {
	if o.FetchTimeout <= 0 {
		o.FetchTimeout = 10 * time.Second
	}
	if o.RetryInterval <= 0 {
		o.RetryInterval = 10 * time.Second
	}
	if o.MinRefreshInterval <= 0 {
		o.MinRefreshInterval = 5 * time.Second
	}
	if o.KeyRefreshInterval <= 0 {
		o.KeyRefreshInterval = 10 * time.Minute
	}
	if o.Leeway <= 0 {
		o.Leeway = time.Minute
	}
	if o.MaxTokenSize <= 0 {
		o.MaxTokenSize = DefaultMaxTokenSize
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

// Authenticator verifies the tokens of one issuer. It recognises only
// tokens whose (unverified) iss is its issuer URL; for those it either
// returns the mapped user or an error.
type Authenticator struct {
	c     *Compiled
	opts  Options
	fetch *fetcher

	keys      atomic.Pointer[keySet]
	health    atomic.Pointer[error] // nil once ready
	lifecycle atomic.Pointer[context.Context]
	ready     chan struct{}
	readyOnce sync.Once
	kick      chan struct{}
	usesCEL   bool
}

// New returns the authenticator for one compiled JWTAuthenticator. It
// does no I/O: Run fetches the discovery document and keys, and until it
// has, tokens of this issuer fail with ErrNotReady.
func New(c *Compiled, opts Options) (*Authenticator, error) {
	if c == nil {
		return nil, errors.New("jwt: nil configuration")
	}
	opts = opts.withDefaults()
	client := opts.Client
	if client == nil {
		tr, ok := http.DefaultTransport.(*http.Transport)
		if !ok {
			return nil, errors.New("jwt: http.DefaultTransport is not an *http.Transport")
		}
		tr = tr.Clone()
		tr.TLSClientConfig = &tls.Config{RootCAs: c.roots, MinVersion: tls.VersionTLS12}
		client = &http.Client{Transport: tr, Timeout: opts.FetchTimeout, CheckRedirect: httpsOnly}
	}
	a := &Authenticator{
		c: c, opts: opts, fetch: newFetcher(c, client, opts),
		ready: make(chan struct{}), kick: make(chan struct{}, 1),
	}
	a.usesCEL = len(c.claimRules) > 0 || c.username.p != nil || c.groups.p != nil ||
		c.uid.p != nil || len(c.extra) > 0
	notYet := fmt.Errorf("%w: issuer %q has not been contacted yet", ErrNotReady, c.issuer)
	a.health.Store(&notYet)
	return a, nil
}

// httpsOnly refuses redirects that would fetch keys or claims without TLS.
func httpsOnly(req *http.Request, via []*http.Request) error {
	if req.URL.Scheme != "https" {
		return fmt.Errorf("refusing redirect to %s: not https", req.URL.Redacted())
	}
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	return nil
}

// Issuer returns the issuer URL this authenticator serves.
func (a *Authenticator) Issuer() string { return a.c.issuer }

// Ready is closed once the discovery document and keys have been fetched.
func (a *Authenticator) Ready() <-chan struct{} { return a.ready }

// HealthCheck returns nil once the authenticator can verify tokens, and
// otherwise why it cannot yet.
func (a *Authenticator) HealthCheck() error {
	if p := a.health.Load(); p != nil {
		return *p
	}
	return nil
}

// Run fetches the issuer's discovery document and keys, retrying every
// RetryInterval while the issuer is unreachable (sooner when tokens for it
// arrive), then refreshes the keys every KeyRefreshInterval. It blocks
// until ctx is cancelled; call it once.
func (a *Authenticator) Run(ctx context.Context) {
	a.lifecycle.Store(&ctx)
	log := a.opts.Logger.With("issuer", a.c.issuer)
	for {
		last := a.opts.Now()
		err := a.initialize(ctx)
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return
		}
		wrapped := fmt.Errorf("%w: issuer %q: %w", ErrNotReady, a.c.issuer, err)
		a.health.Store(&wrapped)
		log.Error("jwt authenticator: initializing", "err", err)
		if !a.wait(ctx, last) {
			return
		}
	}
	log.Info("jwt authenticator: ready")

	t := time.NewTicker(a.opts.KeyRefreshInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := a.fetch.refresh(ctx, ctx, a.keys.Store); err != nil && ctx.Err() == nil {
				log.Error("jwt authenticator: refreshing keys, keeping the previous ones", "err", err)
			}
		}
	}
}

// wait sleeps until the next start-up attempt: RetryInterval, or earlier
// when a token asked for one, but never closer than MinRefreshInterval
// to the previous attempt.
func (a *Authenticator) wait(ctx context.Context, last time.Time) bool {
	timer := time.NewTimer(a.opts.RetryInterval)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
		return true
	case <-a.kick:
	}
	gap := a.opts.MinRefreshInterval - a.opts.Now().Sub(last)
	if gap <= 0 {
		return true
	}
	spacer := time.NewTimer(gap)
	defer spacer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-spacer.C:
		return true
	}
}

func (a *Authenticator) initialize(ctx context.Context) error {
	if err := a.fetch.discover(ctx); err != nil {
		return err
	}
	fctx, cancel := context.WithTimeout(ctx, a.opts.FetchTimeout)
	defer cancel()
	set, err := a.fetch.fetchKeys(fctx)
	if err != nil {
		return err
	}
	a.fetch.mu.Lock()
	a.fetch.lastAttempt = a.opts.Now()
	a.fetch.mu.Unlock()
	a.keys.Store(set)
	// Health is cleared after the keys are stored, so a nil HealthCheck
	// always means tokens can be verified.
	a.health.Store(nil)
	a.readyOnce.Do(func() { close(a.ready) })
	return nil
}

// AuthenticateToken implements authn.Token.
func (a *Authenticator) AuthenticateToken(ctx context.Context, token string) (user.Info, bool, error) {
	if len(token) > a.opts.MaxTokenSize {
		if looksLikeJWT(token) {
			return nil, false, fmt.Errorf("%w: %d bytes, limit %d", ErrTokenTooLarge, len(token), a.opts.MaxTokenSize)
		}
		return nil, false, nil
	}
	iss, ok := untrustedIssuer(token)
	if !ok || iss != a.c.issuer {
		return nil, false, nil
	}
	info, err := a.authenticate(ctx, token)
	if err != nil {
		return nil, false, err
	}
	return info, true, nil
}

// authenticate checks a token already routed to this issuer.
func (a *Authenticator) authenticate(ctx context.Context, token string) (user.Info, error) {
	if a.keys.Load() == nil {
		select {
		case a.kick <- struct{}{}:
		default:
		}
		return nil, a.HealthCheck()
	}
	payload, err := a.verifySignature(ctx, token)
	if err != nil {
		return nil, err
	}
	c, err := decodeClaims(payload)
	if err != nil {
		return nil, err
	}
	if err := a.checkStandardClaims(c); err != nil {
		return nil, err
	}
	if err := a.expandDistributed(ctx, c); err != nil {
		return nil, err
	}
	return a.mapUser(ctx, c)
}

// header is the protected JOSE header, read before go-jose parses the
// token so that a disallowed algorithm gets a clear error.
type header struct {
	Alg string `json:"alg"`
	Kid string `json:"kid"`
}

func (a *Authenticator) verifySignature(ctx context.Context, token string) ([]byte, error) {
	h64, _, _ := strings.Cut(token, ".")
	raw, err := base64.RawURLEncoding.DecodeString(h64)
	if err != nil {
		return nil, fmt.Errorf("%w: header: %w", ErrMalformed, err)
	}
	var h header
	if err := json.Unmarshal(raw, &h); err != nil {
		return nil, fmt.Errorf("%w: header: %w", ErrMalformed, err)
	}
	alg := jose.SignatureAlgorithm(h.Alg)
	if !slices.Contains(allowedAlgs, alg) || (len(a.opts.SigningAlgs) > 0 && !slices.Contains(a.opts.SigningAlgs, h.Alg)) {
		return nil, fmt.Errorf("%w: signing algorithm %q is not allowed", ErrSignature, h.Alg)
	}
	jws, err := jose.ParseSignedCompact(token, allowedAlgs)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	if len(jws.Signatures) != 1 {
		return nil, fmt.Errorf("%w: expected one signature", ErrMalformed)
	}

	ks := a.keys.Load()
	for attempt := 0; ; attempt++ {
		for _, k := range ks.candidates(h.Kid, alg) {
			if payload, err := jws.Verify(k.Key); err == nil {
				return payload, nil
			}
		}
		// A token signed with a key we do not know yet may follow a key
		// rotation: fetch the key set once (spaced by MinRefreshInterval).
		if attempt > 0 || (h.Kid != "" && ks.hasKID(h.Kid)) {
			break
		}
		lc := a.lifecycle.Load()
		if lc == nil {
			break
		}
		fresh, err := a.fetch.refresh(ctx, *lc, a.keys.Store)
		if err != nil {
			return nil, fmt.Errorf("%w: no key for kid %q and refreshing the key set failed: %w", ErrSignature, h.Kid, err)
		}
		if fresh == nil {
			ks = a.keys.Load()
		} else {
			ks = fresh
		}
	}
	if h.Kid != "" && !ks.hasKID(h.Kid) {
		return nil, fmt.Errorf("%w: no key with kid %q", ErrSignature, h.Kid)
	}
	return nil, fmt.Errorf("%w: no key of the issuer verifies the token", ErrSignature)
}

// checkStandardClaims checks iss, aud, exp and nbf.
func (a *Authenticator) checkStandardClaims(c claims) error {
	iss, err := c.stringClaim("iss")
	if err != nil || normalizeIssuer(iss) != a.c.issuer {
		return fmt.Errorf("%w: expected %q", ErrIssuer, a.c.issuer)
	}
	auds, err := c.audiences()
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(auds, func(s string) bool { return slices.Contains(a.c.audiences, s) }) {
		return fmt.Errorf("%w: expected audience in %q got %q", ErrAudience, a.c.audiences, auds)
	}
	return c.checkTimes(a.opts.Now(), a.opts.Leeway)
}

package kmstest

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/binary"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	kmsapi "k8s.io/kms/apis/v2"
)

// The method names of SetFail and Calls.
const (
	MethodStatus  = "Status"
	MethodEncrypt = "Encrypt"
	MethodDecrypt = "Decrypt"
)

// DefaultKeyID is the key id of a plugin whose Options name none.
const DefaultKeyID = "key-1"

// defaultSecret derives every KEK unless Options.Secret is set. It is a
// test secret and protects nothing.
var defaultSecret = []byte("portcullis kmstest secret, not for production use")

// Options configure a Plugin.
type Options struct {
	// KeyID is the initial key id; DefaultKeyID when empty.
	KeyID string
	// Secret derives the KEKs; a fixed test secret when empty.
	Secret []byte
	// Annotations are returned with every Encrypt and must come back with
	// its ciphertext on Decrypt. Keys must be domain names.
	Annotations map[string][]byte
	// ControlFile, when set, is read on every call; see Control.
	ControlFile string
	// Logger defaults to discarding.
	Logger *slog.Logger
}

// Plugin is a KMS v2 plugin whose behaviour tests change at run time.
type Plugin struct {
	secret      []byte
	annotations map[string][]byte
	controlFile string
	log         *slog.Logger

	mu      sync.Mutex
	keyID   string
	healthz string
	version string
	delay   time.Duration
	fail    map[string]bool
	calls   map[string]int
	holds   map[string]chan struct{}
	// lastGood is the last control file that parsed, used while the file
	// does not.
	lastGood *Control
}

// New returns a plugin that is healthy, reports API version v2 and
// answers at once.
func New(opts Options) *Plugin {
	p := &Plugin{
		secret:      opts.Secret,
		annotations: maps.Clone(opts.Annotations),
		controlFile: opts.ControlFile,
		log:         opts.Logger,
		keyID:       opts.KeyID,
		healthz:     "ok",
		version:     "v2",
		fail:        map[string]bool{},
		calls:       map[string]int{},
		holds:       map[string]chan struct{}{},
	}
	if len(p.secret) == 0 {
		p.secret = defaultSecret
	}
	if p.keyID == "" {
		p.keyID = DefaultKeyID
	}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	return p
}

// SetKeyID changes the key id that Status reports and Encrypt uses.
func (p *Plugin) SetKeyID(keyID string) { p.set(func() { p.keyID = keyID }) }

// SetHealthz changes what Status reports as healthz ("ok" is healthy).
func (p *Plugin) SetHealthz(healthz string) { p.set(func() { p.healthz = healthz }) }

// SetVersion changes the API version that Status reports.
func (p *Plugin) SetVersion(version string) { p.set(func() { p.version = version }) }

// SetDelay makes every call wait d before it answers (or until the caller
// gives up).
func (p *Plugin) SetDelay(d time.Duration) { p.set(func() { p.delay = d }) }

// SetFail makes method (MethodStatus, MethodEncrypt or MethodDecrypt)
// fail with codes.Internal, or stop failing.
func (p *Plugin) SetFail(method string, fail bool) { p.set(func() { p.fail[method] = fail }) }

// Hold makes the calls of method that begin from now on wait, after any
// delay, until release is called or their caller gives up: a test holds a
// call in flight for as long as it needs. release may be called more than
// once.
func (p *Plugin) Hold(method string) (release func()) {
	ch := make(chan struct{})
	p.set(func() { p.holds[method] = ch })
	var once sync.Once
	return func() {
		once.Do(func() {
			p.set(func() {
				if p.holds[method] == ch {
					delete(p.holds, method)
				}
			})
			close(ch)
		})
	}
}

// Calls is how many times method was called, failed calls included.
func (p *Plugin) Calls(method string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls[method]
}

// KeyID is the key id in effect, the control file's if it sets one.
func (p *Plugin) KeyID() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.settingsLocked().keyID
}

func (p *Plugin) set(f func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f()
}

// settings is what one call sees.
type settings struct {
	keyID, healthz, version string
	delay                   time.Duration
	fail                    bool
	hold                    <-chan struct{}
}

// begin counts a call of method and returns the settings it runs with.
func (p *Plugin) begin(method string) settings {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls[method]++
	s := p.settingsLocked()
	s.fail = p.fail[method]
	s.hold = p.holds[method]
	if c := p.lastGood; c != nil {
		switch method {
		case MethodStatus:
			s.fail = override(s.fail, c.FailStatus)
		case MethodEncrypt:
			s.fail = override(s.fail, c.FailEncrypt)
		case MethodDecrypt:
			s.fail = override(s.fail, c.FailDecrypt)
		}
	}
	return s
}

// settingsLocked re-reads the control file and lays it over the setters.
func (p *Plugin) settingsLocked() settings {
	if p.controlFile != "" {
		c, err := readControl(p.controlFile)
		if err != nil {
			p.log.Warn("kmstest: ignoring control file", "err", err)
		} else {
			p.lastGood = c
		}
	}
	s := settings{keyID: p.keyID, healthz: p.healthz, version: p.version, delay: p.delay}
	if c := p.lastGood; c != nil {
		s.keyID = override(s.keyID, c.KeyID)
		s.healthz = override(s.healthz, c.Healthz)
		s.version = override(s.version, c.Version)
		if c.Delay != nil {
			s.delay = time.Duration(*c.Delay)
		}
	}
	return s
}

func override[T any](v T, o *T) T {
	if o != nil {
		return *o
	}
	return v
}

// wait applies the delay of a call.
func wait(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return status.FromContextError(ctx.Err()).Err()
	}
}

// run does what every method does first: count, delay, fail on request.
func (p *Plugin) run(ctx context.Context, method string) (settings, error) {
	s := p.begin(method)
	if err := wait(ctx, s.delay); err != nil {
		return s, err
	}
	if s.hold != nil {
		select {
		case <-s.hold:
		case <-ctx.Done():
			return s, status.FromContextError(ctx.Err()).Err()
		}
	}
	if s.fail {
		return s, status.Errorf(codes.Internal, "kmstest: %s fails by request", method)
	}
	return s, nil
}

// aead is the KEK of keyID with its additional data.
func (p *Plugin) aead(keyID string, annotations map[string][]byte) (cipher.AEAD, []byte, error) {
	kek, err := hkdf.Key(sha256.New, p.secret, nil, "kmstest kek "+keyID, 32)
	if err != nil {
		return nil, nil, err
	}
	block, err := aes.NewCipher(kek)
	if err != nil {
		return nil, nil, err
	}
	aead, err := cipher.NewGCMWithRandomNonce(block)
	if err != nil {
		return nil, nil, err
	}
	ad := appendLV([]byte("kmstest\x00"), []byte(keyID))
	for _, k := range slices.Sorted(maps.Keys(annotations)) {
		ad = appendLV(ad, []byte(k))
		ad = appendLV(ad, annotations[k])
	}
	return aead, ad, nil
}

func appendLV(b, v []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(v)))
	return append(b, v...)
}

// server is the gRPC face of a Plugin.
type server struct {
	kmsapi.UnimplementedKeyManagementServiceServer
	p *Plugin
}

func (s server) Status(ctx context.Context, _ *kmsapi.StatusRequest) (*kmsapi.StatusResponse, error) {
	set, err := s.p.run(ctx, MethodStatus)
	if err != nil {
		return nil, err
	}
	return &kmsapi.StatusResponse{Version: set.version, Healthz: set.healthz, KeyId: set.keyID}, nil
}

func (s server) Encrypt(ctx context.Context, req *kmsapi.EncryptRequest) (*kmsapi.EncryptResponse, error) {
	set, err := s.p.run(ctx, MethodEncrypt)
	if err != nil {
		return nil, err
	}
	if req.Uid == "" {
		return nil, status.Error(codes.InvalidArgument, "kmstest: Encrypt without uid")
	}
	if len(req.Plaintext) == 0 {
		return nil, status.Error(codes.InvalidArgument, "kmstest: Encrypt of nothing")
	}
	aead, ad, err := s.p.aead(set.keyID, s.p.annotations)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "kmstest: %v", err)
	}
	return &kmsapi.EncryptResponse{
		Ciphertext:  aead.Seal(nil, nil, req.Plaintext, ad),
		KeyId:       set.keyID,
		Annotations: maps.Clone(s.p.annotations),
	}, nil
}

func (s server) Decrypt(ctx context.Context, req *kmsapi.DecryptRequest) (*kmsapi.DecryptResponse, error) {
	if _, err := s.p.run(ctx, MethodDecrypt); err != nil {
		return nil, err
	}
	if req.Uid == "" {
		return nil, status.Error(codes.InvalidArgument, "kmstest: Decrypt without uid")
	}
	aead, ad, err := s.p.aead(req.KeyId, req.Annotations)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "kmstest: %v", err)
	}
	plaintext, err := aead.Open(nil, nil, req.Ciphertext, ad)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, "kmstest: ciphertext does not decrypt under this key id and annotations")
	}
	return &kmsapi.DecryptResponse{Plaintext: plaintext}, nil
}

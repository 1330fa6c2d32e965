package server

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"sync"
	"time"

	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/client-go/applyconfigurations"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/portcullis/portcullis/internal/authn"
	"github.com/portcullis/portcullis/internal/authn/serviceaccount"
	"github.com/portcullis/portcullis/internal/controllers/authenticationtrust"
	"github.com/portcullis/portcullis/internal/controllers/leaderelection"
	"github.com/portcullis/portcullis/internal/pki"
	"github.com/portcullis/portcullis/internal/request"
)

// Run serves until ctx is done, then stops accepting connections, lets
// in-flight requests finish within cfg.ShutdownTimeout, stops background
// work and closes the store.
func Run(ctx context.Context, cfg Config, log *slog.Logger) error {
	start := time.Now()
	if err := cfg.Validate(); err != nil {
		return err
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return fmt.Errorf("creating data directory: %w", err)
	}
	// The slowest parts of a first start run beside the rest of it:
	// generating the service account key (RSA 2048: 50 to 300 ms) and
	// parsing the server-side apply schemas (about 70 ms, once per
	// process, waited for by the REST handler).
	var (
		warm        sync.WaitGroup
		saKeys      *serviceaccount.Keys
		saErr       error
		saKeysReady = make(chan struct{})
	)
	defer warm.Wait()
	warm.Go(func() {
		defer close(saKeysReady)
		saKeys, saErr = loadServiceAccountKeys(cfg)
	})
	warm.Go(func() { applyconfigurations.NewTypeConverter(clientgoscheme.Scheme) })
	files, err := pki.Ensure(cfg.pkiDir(), servingHosts(cfg.BindAddress))
	if err != nil {
		return fmt.Errorf("preparing key material: %w", err)
	}
	tlsCfg, clientCA, err := tlsConfig(cfg, files)
	if err != nil {
		return err
	}
	certs, err := certificateAuthenticator(cfg, clientCA)
	if err != nil {
		return err
	}
	// Clients verify this server with the CA of the admin kubeconfig,
	// which pods get as kube-root-ca.crt.
	rootCA, err := os.ReadFile(files.CACert)
	if err != nil {
		return fmt.Errorf("reading the CA: %w", err)
	}

	store, err := openStore(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer store.Close()

	ln, err := net.Listen("tcp", net.JoinHostPort(cfg.BindAddress, strconv.Itoa(cfg.SecurePort)))
	if err != nil {
		return fmt.Errorf("listening: %w", err)
	}
	addr := ln.Addr().(*net.TCPAddr)

	app, err := newAPI(apiDeps{
		store:  store,
		certs:  certs,
		rootCA: rootCA,
		log:    log,
		config: cfg,
		saKeys: func() (*serviceaccount.Keys, error) {
			<-saKeysReady
			return saKeys, saErr
		},
	})
	if err != nil {
		ln.Close()
		return err
	}
	bgCtx, stopBackground := context.WithCancel(context.Background())
	var bg sync.WaitGroup
	defer func() {
		stopBackground()
		bg.Wait()
	}()
	// The server's own writes are made as kube-apiserver's loopback user.
	ctx = request.WithState(ctx, &request.State{User: &user.DefaultInfo{Name: user.APIServerUser, Groups: []string{user.SystemPrivilegedGroup}}})
	bgCtx = request.WithState(bgCtx, request.StateFrom(ctx))
	// Informers and controllers start first: admission plugins wait for
	// their policies before admitting even the bootstrap writes.
	for _, run := range app.background {
		bg.Go(func() { run(bgCtx) })
	}
	for _, start := range app.start {
		if err := start(ctx); err != nil {
			ln.Close()
			return err
		}
	}

	// The controllers run once the system namespaces exist: on etcd under
	// the lease (which lives in kube-system), else at once.
	if app.elector != nil {
		bg.Go(func() { app.elector.Run(bgCtx, leaderelection.Group(app.controllers...)) })
	} else {
		for _, run := range app.controllers {
			bg.Go(func() { run(bgCtx) })
		}
	}

	url := "https://" + net.JoinHostPort(urlHost(cfg.BindAddress), strconv.Itoa(addr.Port))
	if err := pki.WriteKubeconfig(cfg.kubeconfigPath(), url, files.CACert, files.AdminCert, files.AdminKey); err != nil {
		ln.Close()
		return fmt.Errorf("writing admin kubeconfig: %w", err)
	}

	srv := &http.Server{
		Handler:           app.handler,
		TLSConfig:         tlsCfg,
		ReadHeaderTimeout: 32 * time.Second,
		MaxHeaderBytes:    1 << 20,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(tls.NewListener(ln, tlsCfg)) }()
	app.ready.Store(true)
	// Render the OpenAPI documents off the start-up path: the first
	// kubectl apply or explain then finds them ready.
	bg.Go(func() {
		if err := app.openapi.Warm(); err != nil {
			log.Error("building OpenAPI documents", "err", err)
		}
		// Building them leaves tens of megabytes of garbage; hand it back
		// now rather than whenever the scavenger gets to it.
		debug.FreeOSMemory()
	})
	kubeconfig, _ := filepath.Abs(cfg.kubeconfigPath())
	log.Info("portcullis is ready", "address", url, "kubeconfig", kubeconfig, "startup", time.Since(start).Round(time.Millisecond).String())

	select {
	case err := <-serveErr:
		return fmt.Errorf("serving: %w", err)
	case <-ctx.Done():
	}
	app.beginShutdown()
	log.Info("shutting down", "timeout", cfg.ShutdownTimeout.String())
	shutdownCtx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	err = srv.Shutdown(shutdownCtx)
	if errors.Is(err, context.DeadlineExceeded) {
		log.Warn("in-flight requests did not finish before the shutdown deadline")
		_ = srv.Close()
	}
	app.close()
	stopBackground()
	bg.Wait()
	if cerr := store.Close(); cerr != nil {
		return fmt.Errorf("closing store: %w", cerr)
	}
	log.Info("stopped")
	return nil
}

// servingHosts are the names the generated serving certificate covers.
func servingHosts(bind string) []string {
	hosts := []string{"127.0.0.1", "localhost", "::1"}
	if ip := net.ParseIP(bind); ip != nil && !ip.IsUnspecified() && !ip.IsLoopback() {
		hosts = append(hosts, bind)
	}
	return hosts
}

func urlHost(bind string) string {
	if ip := net.ParseIP(bind); ip == nil || ip.IsUnspecified() {
		return "127.0.0.1"
	}
	return bind
}

// tlsConfig builds the serving TLS configuration. Client certificates are
// requested but verified by the x509 authenticator, so a bad certificate
// gets a 401 Status rather than a failed handshake, as in kube-apiserver.
func tlsConfig(cfg Config, files pki.Files) (*tls.Config, caBundle, error) {
	certFile, keyFile := files.ServingCert, files.ServingKey
	if cfg.TLSCertFile != "" {
		certFile, keyFile = cfg.TLSCertFile, cfg.TLSPrivateKeyFile
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, caBundle{}, fmt.Errorf("loading serving certificate: %w", err)
	}
	caFile := files.CACert
	if cfg.ClientCAFile != "" {
		caFile = cfg.ClientCAFile
	}
	ca, err := readCABundle("--client-ca-file", caFile)
	if err != nil {
		return nil, caBundle{}, err
	}
	return &tls.Config{
		Certificates: []tls.Certificate{cert},
		ClientAuth:   tls.RequestClientCert,
		MinVersion:   tls.VersionTLS12,
		NextProtos:   []string{"h2", "http/1.1"},
	}, ca, nil
}

// caBundle is a CA file's certificates, parsed and as read (published in
// the extension-apiserver-authentication ConfigMap).
type caBundle struct {
	pool *x509.CertPool
	pem  []byte
}

func readCABundle(flag, path string) (caBundle, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return caBundle{}, fmt.Errorf("%s: %w", flag, err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(data) {
		return caBundle{}, fmt.Errorf("%s: %s holds no PEM certificates", flag, path)
	}
	return caBundle{pool: pool, pem: data}, nil
}

// certificates are the client-certificate authenticators in
// kube-apiserver's order (a front proxy first) and what they trust.
type certificates struct {
	authn.Authenticator
	clientCA      caBundle
	requestHeader *caBundle
}

// trustInfo is what the extension-apiserver-authentication ConfigMap
// publishes of these authenticators.
func (c certificates) trustInfo(rh RequestHeaderFlags) authenticationtrust.Info {
	info := authenticationtrust.Info{ClientCA: c.clientCA.pem}
	if c.requestHeader != nil {
		info.RequestHeaderCA = c.requestHeader.pem
		info.RequestHeaderAllowed, info.RequestHeaderUsernames, info.RequestHeaderUIDs = rh.AllowedNames, rh.UsernameHeaders, rh.UIDHeaders
		info.RequestHeaderGroups, info.RequestHeaderExtras = rh.GroupHeaders, rh.ExtraHeaderPrefixes
	}
	return info
}

// certificateAuthenticator builds the front-proxy (when
// --requestheader-client-ca-file is set) and client certificate
// authenticators.
func certificateAuthenticator(cfg Config, clientCA caBundle) (certificates, error) {
	x509Auth := authn.NewX509(func() *x509.CertPool { return clientCA.pool })
	c := certificates{Authenticator: x509Auth, clientCA: clientCA}
	rh := cfg.RequestHeader
	if rh.ClientCAFile == "" {
		return c, nil
	}
	ca, err := readCABundle("--requestheader-client-ca-file", rh.ClientCAFile)
	if err != nil {
		return c, err
	}
	rc := authn.RequestHeaderConfig{ClientCA: ca.pool, AllowedNames: rh.AllowedNames, UsernameHeaders: rh.UsernameHeaders,
		UIDHeaders: rh.UIDHeaders, GroupHeaders: rh.GroupHeaders, ExtraHeaderPrefixes: rh.ExtraHeaderPrefixes}
	if err := rc.Validate(cfg.gate("RemoteRequestHeaderUID", true)); err != nil {
		return c, err
	}
	c.Authenticator, c.requestHeader = authn.Union{authn.NewRequestHeader(rc), x509Auth}, &ca
	return c, nil
}

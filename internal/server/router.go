package server

import (
	"context"
	"errors"
	"net/http"
	"net/http/pprof"
	"strings"
	"sync/atomic"

	"github.com/portcullis/portcullis/internal/authn/serviceaccount"
	"github.com/portcullis/portcullis/internal/discovery"
	"github.com/portcullis/portcullis/internal/healthz"
	"github.com/portcullis/portcullis/internal/request"
	"github.com/portcullis/portcullis/internal/rest"
	"github.com/portcullis/portcullis/internal/version"
)

// router sends each request that passed the filters to its handler.
type router struct {
	rest                 *rest.Handler
	responder            *rest.Responder
	health               healthHandlers
	openapiV2, openapiV3 http.Handler
	profiling            bool
	issuer               *serviceaccount.Discovery
	discovery            *discovery.Handler
}

func (rt router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case request.StateFrom(r.Context()).Info.IsResourceRequest:
		rt.rest.ServeHTTP(w, r)
	case p == "/healthz" || strings.HasPrefix(p, "/healthz/"):
		rt.health.healthz.ServeHTTP(w, r)
	case p == "/livez" || strings.HasPrefix(p, "/livez/"):
		rt.health.livez.ServeHTTP(w, r)
	case p == "/readyz" || strings.HasPrefix(p, "/readyz/"):
		rt.health.readyz.ServeHTTP(w, r)
	case p == "/version" || p == "/version/":
		v := version.Info()
		writeJSON(w, http.StatusOK, &v)
	case p == "/openapi/v2":
		rt.openapiV2.ServeHTTP(w, r)
	case p == "/openapi/v3" || strings.HasPrefix(p, "/openapi/v3/"):
		rt.openapiV3.ServeHTTP(w, r)
	case rt.profiling && strings.HasPrefix(p, "/debug/pprof"):
		servePprof(w, r)
	case rt.issuer.Serve(w, r):
	case rt.discovery.Serve(w, r):
	default:
		notFound(w, r, rt.responder)
	}
}

// healthChecks are what /healthz, /livez and /readyz check, with
// kube-apiserver's check names.
type healthChecks struct {
	// store is the "etcd" check, storeReady the "etcd-readiness" one
	// (nil: there is none).
	store, storeReady func(context.Context) error
	authn             func() error // every JWT issuer has its keys
	authz             func() error // the authorizers' informers have listed
	// informers is kube-apiserver's informer-sync: the admission
	// plugins' informers have listed.
	informers func() error
	ready     *atomic.Bool // false before start-up ends and once shutdown begins
	kms       func(context.Context) error
}

type healthHandlers struct{ healthz, livez, readyz healthz.Handler }

func (c healthChecks) handlers() healthHandlers {
	store := healthz.Check{Name: "etcd", Fn: c.store}
	authn := healthz.Check{Name: "poststarthook/authentication-config-issuers", Fn: func(context.Context) error { return c.authn() }}
	authz := healthz.Check{Name: "poststarthook/authorization-informers-synced", Fn: func(context.Context) error { return c.authz() }}
	shutdown := healthz.Check{Name: "shutdown", Fn: func(context.Context) error {
		if !c.ready.Load() {
			return errors.New("server is not accepting requests")
		}
		return nil
	}}
	h := healthHandlers{
		healthz: healthz.Handler{Endpoint: "healthz", Checks: []healthz.Check{healthz.Ping, store}},
		livez:   healthz.Handler{Endpoint: "livez", Checks: []healthz.Check{healthz.Ping, store}},
		readyz:  healthz.Handler{Endpoint: "readyz", Checks: []healthz.Check{healthz.Ping, store}},
	}
	if c.storeReady != nil {
		h.readyz.Checks = append(h.readyz.Checks, healthz.Check{Name: "etcd-readiness", Fn: c.storeReady})
	}
	if c.informers != nil {
		h.readyz.Checks = append(h.readyz.Checks, healthz.Check{Name: "informer-sync", Fn: func(context.Context) error { return c.informers() }})
	}
	h.readyz.Checks = append(h.readyz.Checks, authn, authz, shutdown)
	if c.kms != nil {
		// As kube-apiserver: one check for all KMS plugins, on healthz
		// and readyz but not livez (a plugin that is down is no reason to
		// restart the server).
		kms := healthz.Check{Name: "kms-providers", Fn: c.kms}
		h.healthz.Checks = append(h.healthz.Checks, kms)
		h.readyz.Checks = append(h.readyz.Checks, kms)
	}
	return h
}

// servePprof serves the Go profiler under /debug/pprof/.
func servePprof(w http.ResponseWriter, r *http.Request) {
	switch strings.TrimPrefix(r.URL.Path, "/debug/pprof/") {
	case "cmdline":
		pprof.Cmdline(w, r)
	case "profile":
		pprof.Profile(w, r)
	case "symbol":
		pprof.Symbol(w, r)
	case "trace":
		pprof.Trace(w, r)
	default:
		pprof.Index(w, r)
	}
}

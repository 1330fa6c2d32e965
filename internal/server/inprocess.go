package server

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/portcullis/portcullis/internal/authn"
	"github.com/portcullis/portcullis/internal/authn/serviceaccount"
	"github.com/portcullis/portcullis/internal/controllers/clusterroleaggregation"
	"github.com/portcullis/portcullis/internal/pki"
	"github.com/portcullis/portcullis/internal/registry"
	"github.com/portcullis/portcullis/internal/request"
	"github.com/portcullis/portcullis/internal/storage"
	"github.com/portcullis/portcullis/internal/storage/memory"
)

// InProcess is the request path of `portcullis serve` without a listener,
// files or a network of its own: the same filters, authenticators,
// authorizers, admission chain and REST handlers, built by the same
// newAPI, over a store in memory. `portcullis admit` and `portcullis
// test` send their requests through it.
type InProcess struct {
	app *api
	// proxy is the certificate of the front proxy every request with an
	// Identity (and no token) comes through, as an authenticating proxy's
	// requests come to kube-apiserver.
	proxy []*x509.Certificate
	// loopback carries the server's own identity, for loading state.
	loopback context.Context
	store    storage.Store
	stop     context.CancelFunc
	bg       sync.WaitGroup
}

// The request headers the in-process front proxy names its users with:
// kube-apiserver's suggested --requestheader-* values.
const (
	inProcessUserHeader  = "X-Remote-User"
	inProcessUIDHeader   = "X-Remote-Uid"
	inProcessGroupHeader = "X-Remote-Group"
	inProcessExtraPrefix = "X-Remote-Extra-"
	inProcessProxyName   = "portcullis-admit"
)

// Identity is who an in-process request is made by.
type Identity struct {
	// Token, when set, is sent as a bearer token for the configured
	// authenticators (token file, JWT, service account tokens, webhook);
	// the other fields are then ignored.
	Token string
	// Name, UID, Groups and Extra are the user as an authenticating
	// front proxy asserts it. kube-apiserver adds system:authenticated
	// to the groups, as for any authenticated user.
	Name   string
	UID    string
	Groups []string
	Extra  map[string][]string
}

// StartInProcess builds the request path cfg describes over an empty store
// in memory, writes state into it as objects the cluster already holds
// (through the REST handlers, so defaulted and validated as on create,
// but without admission: state is not a request under test), runs what
// `portcullis serve` runs before it is ready (system namespaces, bootstrap
// RBAC, priority classes, flow control, custom resource definitions) and
// returns once the authorizers and the admission chain have seen that
// state. Every namespace gets its default service account, as the service
// account controller would have made it; kube-controller-manager's other
// controllers do not run.
//
// Objects of kinds served only once a custom resource definition of state
// is established are written after start. Server-side files (data
// directory, PKI, admin kubeconfig, audit log) are not written.
func StartInProcess(ctx context.Context, cfg Config, state []*unstructured.Unstructured, log *slog.Logger) (*InProcess, error) {
	ca, proxy, err := pki.NewClientInMemory(inProcessProxyName, nil)
	if err != nil {
		return nil, fmt.Errorf("front proxy certificate: %w", err)
	}
	caPool := x509.NewCertPool()
	caPool.AddCert(ca)
	cfg.RequestHeader = RequestHeaderFlags{AllowedNames: []string{inProcessProxyName},
		UsernameHeaders: []string{inProcessUserHeader}, UIDHeaders: []string{inProcessUIDHeader},
		GroupHeaders: []string{inProcessGroupHeader}, ExtraHeaderPrefixes: []string{inProcessExtraPrefix}}
	rh := authn.RequestHeaderConfig{ClientCA: caPool, AllowedNames: cfg.RequestHeader.AllowedNames,
		UsernameHeaders: cfg.RequestHeader.UsernameHeaders, UIDHeaders: cfg.RequestHeader.UIDHeaders,
		GroupHeaders: cfg.RequestHeader.GroupHeaders, ExtraHeaderPrefixes: cfg.RequestHeader.ExtraHeaderPrefixes}
	// Client certificates are not a way in: nothing presents one.
	noClients := x509.NewCertPool()
	certs := certificates{
		Authenticator: authn.Union{authn.NewRequestHeader(rh), authn.NewX509(func() *x509.CertPool { return noClients })},
		clientCA:      caBundle{pool: noClients},
		requestHeader: &caBundle{pool: caPool},
	}
	// kube-controller-manager's controllers would act on their own time;
	// an offline run's outcome must not depend on when they do.
	cfg.Controllers = nil
	cfg.Etcd.CountMetricPollPeriod = 0
	cfg.CompactionInterval = 0

	saKeys, err := inProcessServiceAccountKeys(cfg)
	if err != nil {
		return nil, fmt.Errorf("service account keys: %w", err)
	}
	store := memory.New(memory.Options{})
	loopback := request.WithState(context.Background(), &request.State{User: &user.DefaultInfo{Name: user.APIServerUser, Groups: []string{user.SystemPrivilegedGroup}}})
	build := func() (*InProcess, error) {
		app, err := newAPI(apiDeps{store: &backend{Store: store}, certs: certs, log: log, config: cfg,
			saKeys: func() (*serviceaccount.Keys, error) { return saKeys, nil }, offline: true})
		if err != nil {
			return nil, err
		}
		return &InProcess{app: app, store: store, proxy: []*x509.Certificate{proxy}, loopback: loopback}, nil
	}

	// The first server writes the state and what serve writes at start
	// (system namespaces, bootstrap RBAC...). Its informers saw some of
	// it only after their first list, and nothing says when they catch up,
	// so a second server over the same store, whose first lists hold all
	// of it, answers the requests.
	first, err := build()
	if err != nil {
		_ = store.Close()
		return nil, err
	}
	later, err := first.load(state, false)
	if err == nil {
		err = first.begin(ctx)
	}
	if err == nil {
		_, err = first.load(later, true)
	}
	if err == nil {
		err = first.defaultServiceAccounts()
	}
	if err == nil && first.app.rbac {
		// The aggregated roles (admin, edit, view...) as the controller
		// would have filled them in.
		err = clusterroleaggregation.Once(startCtx(ctx, loopback), first.app.objects, first.app.state, log)
	}
	first.end()
	if err != nil {
		_ = store.Close()
		return nil, err
	}
	p, err := build()
	if err != nil {
		_ = store.Close()
		return nil, err
	}
	if err := p.begin(ctx); err != nil {
		p.Close()
		return nil, err
	}
	if err := p.waitSynced(ctx); err != nil {
		p.Close()
		return nil, err
	}
	p.app.ready.Store(true)
	return p, nil
}

// begin starts the background work and runs the start steps, as Run does.
func (p *InProcess) begin(ctx context.Context) error {
	bgCtx, stop := context.WithCancel(p.loopback)
	p.stop = stop
	for _, run := range p.app.background {
		p.bg.Go(func() { run(bgCtx) })
	}
	for _, start := range p.app.start {
		if err := start(startCtx(ctx, p.loopback)); err != nil {
			return err
		}
	}
	return nil
}

// startCtx is ctx, carrying the server's own identity of loopback.
func startCtx(ctx, loopback context.Context) context.Context {
	return request.WithState(ctx, request.StateFrom(loopback))
}

// end stops the background work and releases what the server holds, but
// not the store.
func (p *InProcess) end() {
	p.app.beginShutdown()
	if p.stop != nil {
		p.stop()
	}
	p.bg.Wait()
	p.app.close()
}

// inProcessServiceAccountKeys are the keys the flags name, else a key made
// for this run alone (ECDSA: generating RSA would cost more than the run).
func inProcessServiceAccountKeys(cfg Config) (*serviceaccount.Keys, error) {
	if cfg.ServiceAccountSigningKeyFile != "" || len(cfg.ServiceAccountKeyFiles) > 0 {
		return loadServiceAccountKeys(cfg)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	return serviceaccount.NewKeys(key)
}

// waitSynced waits until the authorizers and the admission chain have
// listed what they follow.
func (p *InProcess) waitSynced(ctx context.Context) error {
	for {
		err := p.app.synced()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for the authorizers and admission plugins to load the state: %w (%w)", ctx.Err(), err)
		case <-time.After(time.Millisecond):
		}
	}
}

// load writes state, in order. With strict unset, objects of kinds not
// (yet) served are returned to be written later.
func (p *InProcess) load(state []*unstructured.Unstructured, strict bool) (later []*unstructured.Unstructured, err error) {
	for _, obj := range state {
		gvk := obj.GroupVersionKind()
		res, ok := p.app.objects.ForKind(gvk)
		if !ok {
			if strict {
				return nil, fmt.Errorf("state: %s %q: no resource serves kind %s", obj.GetKind(), obj.GetName(), gvk)
			}
			later = append(later, obj)
			continue
		}
		if err := p.write(res, obj); err != nil {
			return nil, fmt.Errorf("state: %s %q: %w", obj.GetKind(), objectName(obj), err)
		}
	}
	return later, nil
}

func objectName(obj *unstructured.Unstructured) string {
	if ns := obj.GetNamespace(); ns != "" {
		return ns + "/" + obj.GetName()
	}
	return obj.GetName()
}

// write creates obj as a client's POST would, or replaces the stored
// object of its name, then sets its status, which a create or update of a
// resource with a status subresource leaves alone.
func (p *InProcess) write(res *registry.Resource, obj *unstructured.Unstructured) error {
	obj = obj.DeepCopy()
	if res.Namespaced && obj.GetNamespace() == "" {
		obj.SetNamespace(metav1.NamespaceDefault)
	}
	ns, name := obj.GetNamespace(), obj.GetName()
	obj.SetResourceVersion("")
	body, err := json.Marshal(obj.Object)
	if err != nil {
		return err
	}
	stored, err := p.stateRequest(http.MethodPost, ResourcePath(res.GVR, res.Namespaced, ns, "", ""), body)
	if apierrors.IsAlreadyExists(err) && name != "" {
		rv, _, rerr := p.ResourceVersion(res, ns, name)
		if rerr != nil {
			return rerr
		}
		obj.SetResourceVersion(rv)
		if body, err = json.Marshal(obj.Object); err != nil {
			return err
		}
		stored, err = p.stateRequest(http.MethodPut, ResourcePath(res.GVR, res.Namespaced, ns, name, ""), body)
	}
	if err != nil {
		return err
	}
	status, ok := obj.Object["status"]
	if !ok || !res.Status {
		return nil
	}
	stored.Object["status"] = status
	if body, err = json.Marshal(stored.Object); err != nil {
		return err
	}
	_, err = p.stateRequest(http.MethodPut, ResourcePath(res.GVR, res.Namespaced, stored.GetNamespace(), stored.GetName(), "status"), body)
	return err
}

// Load writes objects as state, as StartInProcess writes its state: each
// is created, or replaces the stored object of its name.
func (p *InProcess) Load(objs ...*unstructured.Unstructured) error {
	_, err := p.load(objs, true)
	return err
}

// ResourceVersion returns the resourceVersion of the stored object, and
// whether one is stored.
func (p *InProcess) ResourceVersion(res *registry.Resource, ns, name string) (string, bool, error) {
	_, rv, err := p.app.objects.Read(p.loopback, res, ns, name)
	if apierrors.IsNotFound(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return strconv.FormatInt(rv, 10), true, nil
}

// Resources are the resources served, built-in and custom.
func (p *InProcess) Resources() []*registry.Resource { return p.app.objects.Registry().All() }

// stateRequest sends one request to the state handlers as the server's
// own user and returns the object answered.
func (p *InProcess) stateRequest(method, target string, body []byte) (*unstructured.Unstructured, error) {
	r := httptest.NewRequestWithContext(p.loopback, method, target, bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json")
	st := &request.State{Info: request.Parse(r), User: request.StateFrom(p.loopback).User}
	rec := httptest.NewRecorder()
	p.app.state.ServeHTTP(rec, r.WithContext(request.WithState(r.Context(), st)))
	if rec.Code >= 300 {
		var status metav1.Status
		if json.Unmarshal(rec.Body.Bytes(), &status) == nil && status.Message != "" {
			return nil, &apierrors.StatusError{ErrStatus: status}
		}
		return nil, fmt.Errorf("%s %s: %d %s", method, target, rec.Code, rec.Body.String())
	}
	out := &unstructured.Unstructured{}
	if err := out.UnmarshalJSON(rec.Body.Bytes()); err != nil {
		return nil, fmt.Errorf("%s %s: decoding the answer: %w", method, target, err)
	}
	return out, nil
}

// defaultServiceAccounts gives every namespace the service account
// "default" it lacks, as the service account controller does.
func (p *InProcess) defaultServiceAccounts() error {
	objs := p.app.objects
	nsList, err := objs.List(p.loopback, schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, "", nil)
	if err != nil {
		return err
	}
	saRes, _ := objs.Lookup(schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"})
	for _, o := range nsList {
		ns := o.(*corev1.Namespace)
		if ns.DeletionTimestamp != nil {
			continue
		}
		_, err := objs.GetServiceAccount(p.loopback, ns.Name, "default")
		if err == nil {
			continue
		}
		if !apierrors.IsNotFound(err) {
			return err
		}
		sa := &unstructured.Unstructured{}
		sa.SetAPIVersion("v1")
		sa.SetKind("ServiceAccount")
		sa.SetNamespace(ns.Name)
		sa.SetName("default")
		if err := p.write(saRes, sa); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("service account %s/default: %w", ns.Name, err)
		}
	}
	return nil
}

// Response is what the server answered an in-process request, and the
// request's state: its decision trace, audit annotations and warnings.
type Response struct {
	Code   int
	Header http.Header
	Body   []byte
	State  *request.State
}

// Do sends r through the whole request path as id. r's context bounds it.
func (p *InProcess) Do(r *http.Request, id Identity) *Response {
	r = r.Clone(r.Context())
	if id.Token != "" {
		r.Header.Set("Authorization", "Bearer "+id.Token)
	} else if id.Name != "" {
		r.TLS = &tls.ConnectionState{PeerCertificates: p.proxy}
		r.Header.Set(inProcessUserHeader, id.Name)
		if id.UID != "" {
			r.Header.Set(inProcessUIDHeader, id.UID)
		}
		for _, g := range id.Groups {
			r.Header.Add(inProcessGroupHeader, g)
		}
		for k, vs := range id.Extra {
			for _, v := range vs {
				r.Header.Add(inProcessExtraPrefix+url.PathEscape(k), v)
			}
		}
	}
	var st *request.State
	r = r.WithContext(context.WithValue(r.Context(), stateSinkKey{}, &st))
	rec := httptest.NewRecorder()
	p.app.handler.ServeHTTP(rec, r)
	return &Response{Code: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes(), State: st}
}

// Resource returns the resource that serves kind, if any is served.
func (p *InProcess) Resource(gvk schema.GroupVersionKind) (*registry.Resource, bool) {
	return p.app.objects.ForKind(gvk)
}

// Close stops the server and releases the store.
func (p *InProcess) Close() {
	p.end()
	// A store in memory has nothing to flush: closing it cannot lose anything.
	_ = p.store.Close()
}

// ResourcePath is the URL path of a resource's collection (name ""), of
// one object, or of one of its subresources.
func ResourcePath(gvr schema.GroupVersionResource, namespaced bool, ns, name, sub string) string {
	parts := []string{"/apis", gvr.Group, gvr.Version}
	if gvr.Group == "" {
		parts = []string{"/api", gvr.Version}
	}
	if namespaced && ns != "" {
		parts = append(parts, "namespaces", ns)
	}
	parts = append(parts, gvr.Resource)
	if name != "" {
		parts = append(parts, name)
		if sub != "" {
			parts = append(parts, sub)
		}
	}
	return path.Join(parts...)
}

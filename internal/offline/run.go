package offline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/portcullis/portcullis/internal/registry"
	"github.com/portcullis/portcullis/internal/request"
	"github.com/portcullis/portcullis/internal/server"
)

// ErrBadRequest is a request that cannot be sent: no object, an unknown
// kind or resource, an update of nothing stored. Unlike a denial, it is
// the input's fault.
var ErrBadRequest = errors.New("bad request")

// Setup is what a run starts from.
type Setup struct {
	// Config is the server's configuration, as `portcullis serve`'s flags
	// set it.
	Config server.Config
	// State are the objects the cluster holds before the first request.
	State []*unstructured.Unstructured
	// WebhookAnswers are recorded AdmissionReviews (JSON) by webhook name:
	// those webhooks are answered from them instead of being called.
	WebhookAnswers map[string][]byte
	Log            *slog.Logger
}

// Runner sends requests to one in-process server.
type Runner struct {
	srv *server.InProcess
}

// Start starts the server of s, with its state loaded.
func Start(ctx context.Context, s Setup) (*Runner, error) {
	log := s.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	cfg := s.Config
	if len(s.WebhookAnswers) > 0 {
		answers := s.WebhookAnswers
		cfg.WebhookAnswers = func(name string) ([]byte, bool) {
			b, ok := answers[name]
			return b, ok
		}
	}
	srv, err := server.StartInProcess(ctx, cfg, s.State, log)
	if err != nil {
		return nil, err
	}
	return &Runner{srv: srv}, nil
}

// Close stops the server.
func (r *Runner) Close() { r.srv.Close() }

// Run sends req and returns what came of it. An error is a request that
// could not be sent (ErrBadRequest) or state that could not be written;
// a denial is a Result.
func (r *Runner) Run(ctx context.Context, req Request) (*Result, error) {
	if err := req.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrBadRequest, req.label(), err)
	}
	t, err := r.target(&req)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrBadRequest, req.label(), err)
	}
	var body []byte
	if req.Object != nil {
		obj := req.Object.DeepCopy()
		if t.namespaced && req.Subresource == "" && obj.GetNamespace() == "" {
			obj.SetNamespace(t.ns)
		}
		if err := r.prepare(&req, t, obj); err != nil {
			return nil, err
		}
		if body, err = json.Marshal(obj.Object); err != nil {
			return nil, err
		}
	}
	hr, err := req.newHTTPRequest(t.target, body)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrBadRequest, req.label(), err)
	}
	start := time.Now()
	resp := r.srv.Do(hr.WithContext(ctx), req.identity())
	res := newResult(&req, t, resp)
	res.Micros = request.Since(start)
	return res, nil
}

// resolved is a request's target and its resource.
type resolved struct {
	target
	res *registry.Resource
}

// target finds the resource, namespace and name req addresses.
func (r *Runner) target(req *Request) (resolved, error) {
	var res *registry.Resource
	switch {
	case req.Resource != "":
		var ok bool
		if res, ok = r.resource(req.Resource); !ok {
			return resolved{}, fmt.Errorf("resource %q is not served", req.Resource)
		}
	default:
		gvk := req.Object.GroupVersionKind()
		var ok bool
		if res, ok = r.srv.Resource(gvk); !ok {
			return resolved{}, fmt.Errorf("no resource serves kind %q of apiVersion %q", gvk.Kind, gvk.GroupVersion())
		}
	}
	t := resolved{res: res, target: target{gvr: res.GVR, namespaced: res.Namespaced}}
	t.ns, t.name = req.Namespace, req.ObjectName
	if req.Object != nil && req.Resource == "" {
		t.ns, t.name = req.Object.GetNamespace(), req.Object.GetName()
	}
	if t.namespaced && t.ns == "" {
		t.ns = metav1.NamespaceDefault
	}
	if !t.namespaced {
		t.ns = ""
	}
	if req.operation() != Create && t.name == "" {
		return resolved{}, errors.New("the object has no name")
	}
	if req.operation() == Create && req.Subresource != "" && t.name == "" {
		return resolved{}, fmt.Errorf("subresource %q: objectName names the object it belongs to", req.Subresource)
	}
	return t, nil
}

// resource finds a served resource by "plural" or "plural.group".
func (r *Runner) resource(name string) (*registry.Resource, bool) {
	plural, group, _ := strings.Cut(name, ".")
	for _, res := range r.srv.Resources() {
		if res.GVR.Resource == plural && res.GVR.Group == group {
			return res, true
		}
	}
	return nil, false
}

// prepare writes what req assumes is stored and sets obj's
// resourceVersion to the stored object's for an update.
func (r *Runner) prepare(req *Request, t resolved, obj *unstructured.Unstructured) error {
	switch req.operation() {
	case Update:
		if req.OldObject != nil {
			old := req.OldObject.DeepCopy()
			if t.namespaced && old.GetNamespace() == "" {
				old.SetNamespace(t.ns)
			}
			if err := r.srv.Load(old); err != nil {
				return fmt.Errorf("%s: writing oldObject: %w", req.label(), err)
			}
		}
		rv, ok, err := r.srv.ResourceVersion(t.res, t.ns, t.name)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%w: %s: update of %s, which is not stored (give oldObject or state)", ErrBadRequest, req.label(), t.describe())
		}
		if obj.GetResourceVersion() == "" {
			obj.SetResourceVersion(rv)
		}
	case Delete:
		if req.Resource != "" {
			return nil
		}
		_, ok, err := r.srv.ResourceVersion(t.res, t.ns, t.name)
		if err != nil {
			return err
		}
		if !ok {
			if err := r.srv.Load(obj); err != nil {
				return fmt.Errorf("%s: writing the object to delete: %w", req.label(), err)
			}
		}
	}
	return nil
}

func (t target) describe() string {
	out := t.gvr.Resource
	if t.gvr.Group != "" {
		out += "." + t.gvr.Group
	}
	if t.name != "" {
		out += " " + t.name
	}
	if t.ns != "" {
		out += " in " + t.ns
	}
	return out
}

// label names req in errors.
func (r *Request) label() string {
	if r.Name != "" {
		return fmt.Sprintf("request %q", r.Name)
	}
	if r.Object != nil {
		return fmt.Sprintf("request for %s %q", r.Object.GetKind(), r.Object.GetName())
	}
	return "request"
}

// isSuccess is an HTTP code of an admitted request.
func isSuccess(code int) bool { return code >= http.StatusOK && code < http.StatusMultipleChoices }

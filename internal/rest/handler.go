package rest

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsapply "k8s.io/apiextensions-apiserver/pkg/client/applyconfiguration"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/client-go/applyconfigurations"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	aggregatorapply "k8s.io/kube-aggregator/pkg/client/applyconfiguration"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/objects"
	"github.com/portcullis/portcullis/internal/registry"
	"github.com/portcullis/portcullis/internal/request"
	"github.com/portcullis/portcullis/internal/storage"
	"github.com/portcullis/portcullis/internal/version"
)

// Config is what the REST handlers need.
type Config struct {
	// Objects is the object layer: registry, scheme, store and codec.
	Objects *objects.Objects
	// Admission runs on every write; required (a server without
	// admission plugins has an empty chain).
	Admission *admission.Chain
	// ValidateCreate and ValidateUpdate implement object validation;
	// required, since a write nothing validates must not pass silently.
	ValidateCreate func(obj runtime.Object) field.ErrorList
	ValidateUpdate func(obj, old runtime.Object) field.ErrorList
	// ValidateStatusUpdate validates writes through /status; nil uses
	// ValidateUpdate.
	ValidateStatusUpdate func(obj, old runtime.Object) field.ErrorList
	// Warnings returns the warnings of a successful write of a built-in
	// kind (old is nil on create); nil gives none.
	Warnings func(obj, old runtime.Object) []string
	// Default sets a type's defaults in place; nil sets none.
	Default func(obj runtime.Object)
	// Table renders objects for kubectl get; nil serves the default
	// name/age table.
	Table func(obj runtime.Object, opts metav1.TableOptions, now time.Time) (*metav1.Table, error)
	// Connectors answer the registry's connector subresources, by
	// resource and subresource name.
	Connectors map[ConnectorKey]ConnectorFunc
	// Virtual answers creates of the registry's virtual resources.
	Virtual map[schema.GroupVersionResource]VirtualFunc
	// Authorizer decides the extra permission an unsafe delete of a
	// corrupt object needs (unsafe-delete-ignore-read-errors); nil refuses
	// such deletes.
	Authorizer authorizer.UnconditionalAuthorizer
	// Stopping is closed when the server begins to shut down: open watches
	// end then, so in-flight requests can drain.
	Stopping <-chan struct{}
	// MaxRequestBytes bounds request bodies (3 MiB by default, as kube-apiserver).
	MaxRequestBytes int64
	Now             func() time.Time
}

// Handler serves the resource endpoints under /api and /apis.
type Handler struct {
	cfg      Config
	o        *objects.Objects
	reg      *registry.Registry
	store    storage.Store
	c        *codecs
	rs       *Responder
	managers map[managerKey]*managedfields.FieldManager
}

type managerKey struct {
	gvr         schema.GroupVersionResource
	subresource string
}

// New builds the handlers and the field managers of every resource.
func New(cfg Config) (*Handler, error) {
	switch {
	case cfg.Objects == nil:
		return nil, errors.New("rest: no object layer")
	case cfg.Admission == nil:
		return nil, errors.New("rest: no admission chain")
	case cfg.ValidateCreate == nil || cfg.ValidateUpdate == nil:
		return nil, errors.New("rest: no object validation")
	}
	if cfg.MaxRequestBytes == 0 {
		cfg.MaxRequestBytes = 3 * 1024 * 1024
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	h := &Handler{
		cfg:      cfg,
		o:        cfg.Objects,
		reg:      cfg.Objects.Registry(),
		store:    cfg.Objects.Store(),
		c:        newCodecs(cfg.Objects.Scheme()),
		managers: map[managerKey]*managedfields.FieldManager{},
	}
	h.rs = &Responder{c: h.c}
	scheme := cfg.Objects.Scheme()
	tc := applyconfigurations.NewTypeConverter(scheme)
	// client-go's apply schema does not know apiextensions' types.
	crdTC := apiextensionsapply.NewTypeConverter(scheme)
	// Nor kube-aggregator's.
	apiServiceTC := aggregatorapply.NewTypeConverter(scheme)
	for _, res := range h.reg.All() {
		if res.Virtual {
			if cfg.Virtual[res.GVR] == nil && res.GVR != legacyBindings {
				return nil, fmt.Errorf("rest: virtual resource %s has no handler", res.GVR)
			}
			// A review's create tracks its fields too (the reviews that
			// answer with the request show them); its kinds are not in the
			// apply schema, so their fields are deduced.
			fm, err := managedfields.NewDefaultFieldManager(managedfields.NewDeducedTypeConverter(), scheme, defaulter{cfg.Default}, scheme,
				res.GVK(), res.GVR.GroupVersion(), "", nil)
			if err != nil {
				return nil, err
			}
			h.managers[managerKey{res.GVR, ""}] = fm
			continue
		}
		subs := []string{""}
		if res.Status {
			subs = append(subs, "status")
		}
		for _, sub := range subs {
			tc := tc
			switch res.GVR.Group {
			case apiextensionsv1.GroupName:
				tc = crdTC
			case apiregistrationv1.GroupName:
				tc = apiServiceTC
			}
			fm, err := managedfields.NewDefaultFieldManager(tc, scheme, defaulter{cfg.Default}, scheme,
				res.GVK(), res.GVR.GroupVersion(), sub, resetFields(res, sub))
			if err != nil {
				return nil, err
			}
			h.managers[managerKey{res.GVR, sub}] = fm
		}
		// A connector's body (a TokenRequest, an Eviction) is a create of
		// its subresource, whose managed fields admission sees; its kinds
		// are not in the apply schema, so their fields are deduced.
		for _, c := range res.Connectors {
			fm, err := managedfields.NewDefaultFieldManager(managedfields.NewDeducedTypeConverter(), scheme, defaulter{cfg.Default}, scheme,
				c.Kind, c.Kind.GroupVersion(), c.Name, nil)
			if err != nil {
				return nil, err
			}
			h.managers[managerKey{res.GVR, c.Name}] = fm
		}
	}
	return h, nil
}

// Responder returns the handler's responder, for the server's other endpoints.
func (h *Handler) Responder() *Responder { return h.rs }

// target is the object or collection a request addresses.
type target struct {
	res  *registry.Resource
	ns   string
	name string
	sub  string
}

// ServeHTTP serves one resource request; request.State must carry its Info.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	st := request.StateFrom(r.Context())
	if st == nil || st.Info == nil || !st.Info.IsResourceRequest {
		h.rs.Error(w, r, apierrors.NewNotFound(schema.GroupResource{}, ""))
		return
	}
	info := st.Info
	if !strings.HasPrefix(r.URL.Path, "/api/") && !strings.HasPrefix(r.URL.Path, "/apis/") {
		// kube-apiserver parses //api/v1/... as the resource request it
		// authorizes, but no route serves it: its mux answers in plain text.
		http.NotFound(w, r)
		return
	}
	res, ok := h.reg.Lookup(schema.GroupVersionResource{Group: info.APIGroup, Version: info.APIVersion, Resource: info.Resource})
	if !ok && !h.servesGroup(info.APIPrefix, info.APIGroup) {
		// Nor does any route serve a group it does not have.
		http.NotFound(w, r)
		return
	}
	if !ok || len(info.Parts) > 3 {
		h.notFound(w, r)
		return
	}
	if text := deprecationWarning(res); text != "" {
		st.AddWarning(text)
		st.AddAnnotation("k8s.io/deprecated", "true")
	}
	// Info.Name may come from a metadata.name field selector (for
	// authorization); the addressed object is the one in the path.
	t := target{res: res, ns: info.Namespace, sub: info.Subresource}
	if len(info.Parts) > 1 {
		t.name = info.Parts[1]
	}
	if res.GVR.Resource == "namespaces" && res.GVR.Group == "" {
		t.ns = ""
	} else if !res.Namespaced && info.Namespace != "" {
		h.notFound(w, r)
		return
	}
	if res.Namespaced && t.ns == "" && t.name != "" {
		h.notFound(w, r)
		return
	}
	if res.Virtual {
		if info.Verb != "create" || t.name != "" || t.sub != "" {
			h.methodNotAllowed(w, r, t)
			return
		}
		h.createVirtual(w, r, t)
		return
	}
	switch t.sub {
	case "":
	case "status":
		if !res.Status {
			h.notFound(w, r)
			return
		}
	case "scale":
		if !res.Scale {
			h.notFound(w, r)
			return
		}
	case connectorName(res, t.sub):
		if info.Verb != "create" || t.name == "" {
			h.methodNotAllowed(w, r, t)
			return
		}
		h.connect(w, r, t)
		return
	case "finalize":
		if res.GVR.Resource != "namespaces" || res.GVR.Group != "" || info.Verb != "update" {
			h.notFound(w, r)
			return
		}
	default:
		if slices.Contains(res.Unsupported, t.sub) && t.name != "" {
			h.notSupported(w, r, t, info.Verb)
			return
		}
		h.notFound(w, r)
		return
	}
	if t.sub != "" && t.sub == connectorName(res, t.sub) {
		// Connectors choose their own verbs.
	} else if t.sub != "" && (info.Verb != "get" && info.Verb != "update" && info.Verb != "patch") {
		h.methodNotAllowed(w, r, t)
		return
	}
	switch info.Verb {
	case "get":
		h.get(w, r, t)
	case "list":
		h.list(w, r, t)
	case "watch":
		h.watch(w, r, t)
	case "create":
		if t.name != "" {
			h.methodNotAllowed(w, r, t)
			return
		}
		h.create(w, r, t)
	case "update":
		h.update(w, r, t)
	case "patch":
		h.patch(w, r, t)
	case "delete":
		h.delete(w, r, t)
	case "deletecollection":
		if res.Namespaced && t.ns == "" {
			h.notFound(w, r)
			return
		}
		h.deleteCollection(w, r, t)
	default:
		h.methodNotAllowed(w, r, t)
	}
}

func (h *Handler) notFound(w http.ResponseWriter, r *http.Request) {
	// As kube-apiserver's router misses a route: empty (not absent) details.
	err := apierrors.NewNotFound(schema.GroupResource{}, "")
	err.ErrStatus.Message = "the server could not find the requested resource"
	h.rs.Error(w, r, err)
}

// servesGroup says whether any served resource is in the API group (the
// core group under /api).
func (h *Handler) servesGroup(prefix, group string) bool {
	if prefix == "api" {
		return group == ""
	}
	for _, res := range h.reg.All() {
		if res.GVR.Group == group && group != "" {
			return true
		}
	}
	return false
}

// notSupported answers a subresource kube-apiserver has and this server
// does not serve, as kube-apiserver answers a verb its storage lacks:
// 405 MethodNotAllowed, `<verb> is not supported on resources of kind
// "<resource>/<subresource>"`.
func (h *Handler) notSupported(w http.ResponseWriter, r *http.Request, t target, verb string) {
	gr := t.res.GroupResource()
	gr.Resource += "/" + t.sub
	h.rs.Error(w, r, apierrors.NewMethodNotSupported(gr, verb))
}

func (h *Handler) methodNotAllowed(w http.ResponseWriter, r *http.Request, t target) {
	h.rs.Error(w, r, apierrors.NewMethodNotSupported(t.res.GroupResource(), r.Method))
}

// defaulter adapts the defaulting function to runtime.ObjectDefaulter.
type defaulter struct{ f func(runtime.Object) }

func (d defaulter) Default(obj runtime.Object) {
	if d.f != nil {
		d.f(obj)
	}
}

// deprecationWarning is kube-apiserver's warning on every request to a
// deprecated kind ("v1 Endpoints is deprecated in v1.33+; use
// discovery.k8s.io/v1 EndpointSlice"), or "" for a current one.
func deprecationWarning(res *registry.Resource) string {
	if res.New == nil || res.Custom != nil {
		return ""
	}
	obj, ok := res.New().(interface {
		APILifecycleDeprecated() (major, minor int)
	})
	if !ok {
		return ""
	}
	dMajor, dMinor := obj.APILifecycleDeprecated()
	major, _ := strconv.Atoi(version.Info().Major)
	minor, _ := strconv.Atoi(strings.TrimSuffix(version.Info().Minor, "+"))
	if dMajor == 0 || major < dMajor || (major == dMajor && minor < dMinor) {
		return ""
	}
	gv := res.GVR.GroupVersion().String()
	msg := fmt.Sprintf("%s %s is deprecated in v%d.%d+", gv, res.Kind, dMajor, dMinor)
	if r, ok := obj.(interface{ APILifecycleRemoved() (major, minor int) }); ok {
		if rMajor, rMinor := r.APILifecycleRemoved(); rMajor != 0 {
			msg += fmt.Sprintf(", unavailable in v%d.%d+", rMajor, rMinor)
		}
	}
	if r, ok := obj.(interface {
		APILifecycleReplacement() schema.GroupVersionKind
	}); ok {
		if gvk := r.APILifecycleReplacement(); !gvk.Empty() {
			msg += fmt.Sprintf("; use %s %s", gvk.GroupVersion().String(), gvk.Kind)
		}
	}
	return msg
}

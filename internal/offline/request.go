package offline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/portcullis/portcullis/internal/server"
)

// Group is the API group of portcullis's own file kinds.
const Group = "portcullis.dev"

// APIVersion is the version of AdmissionRequest and AdmissionTest.
const APIVersion = Group + "/v1alpha1"

// Operations are the admission operations a Request can have.
const (
	Create  = "CREATE"
	Update  = "UPDATE"
	Delete  = "DELETE"
	Connect = "CONNECT"
)

// User is who makes a request, as a front proxy asserts it.
type User struct {
	Name   string              `json:"name"`
	UID    string              `json:"uid,omitempty"`
	Groups []string            `json:"groups,omitempty"`
	Extra  map[string][]string `json:"extra,omitempty"`
}

// Request is one request to run: the fields of an AdmissionRequest
// document, and of a case of an AdmissionTest.
type Request struct {
	// Name labels the request in the output; empty: the object's.
	Name string `json:"name,omitempty"`
	// Operation is CREATE (default), UPDATE, DELETE or CONNECT.
	Operation string `json:"operation,omitempty"`
	// Subresource is the subresource written (status, scale, binding,
	// eviction, token...).
	Subresource string `json:"subresource,omitempty"`
	// User makes the request; Token instead sends a bearer token to the
	// configured authenticators. Neither: anonymous.
	User  *User  `json:"user,omitempty"`
	Token string `json:"token,omitempty"`
	// DryRun sends dryRun=All: admission runs, nothing is stored.
	DryRun bool `json:"dryRun,omitempty"`
	// Object is the object sent: created, the new object of an update,
	// the object deleted (written as state first if it is not stored), or
	// the body of a subresource write (a Binding, an Eviction...).
	Object *unstructured.Unstructured `json:"object,omitempty"`
	// OldObject is the stored object an update replaces, written as
	// state first.
	OldObject *unstructured.Unstructured `json:"oldObject,omitempty"`
	// Resource, Namespace and Name address the object when Object is a
	// subresource's body of another kind (an Eviction of pod "web": resource
	// "pods", name "web"); otherwise they come from Object.
	Resource   string `json:"resource,omitempty"`
	Namespace  string `json:"namespace,omitempty"`
	ObjectName string `json:"objectName,omitempty"`
	// Query adds URL parameters (fieldManager, fieldValidation...).
	Query map[string]string `json:"query,omitempty"`
}

// requestDocument is an AdmissionRequest file document.
type requestDocument struct {
	metav1.TypeMeta `json:",inline"`
	Metadata        metav1.ObjectMeta `json:"metadata,omitempty"`
	Request         `json:",inline"`
}

// RequestsFrom turns manifests into requests: AdmissionRequest documents
// as they are, any other object as a create of it by def's user with
// def's options.
func RequestsFrom(objs []*unstructured.Unstructured, def Request) ([]Request, error) {
	var out []Request
	for _, obj := range objs {
		if obj.GetAPIVersion() != APIVersion || obj.GetKind() != "AdmissionRequest" {
			r := def
			r.Object = obj
			out = append(out, r)
			continue
		}
		raw, err := json.Marshal(obj.Object)
		if err != nil {
			return nil, err
		}
		var doc requestDocument
		if err := yaml.UnmarshalStrict(raw, &doc); err != nil {
			return nil, fmt.Errorf("AdmissionRequest %q: %w", obj.GetName(), err)
		}
		r := doc.Request
		if r.Name == "" {
			r.Name = doc.Metadata.Name
		}
		if r.User == nil && r.Token == "" {
			r.User, r.Token = def.User, def.Token
		}
		out = append(out, r)
	}
	return out, nil
}

// Validate reports what makes r impossible to send.
func (r *Request) Validate() error {
	var errs []error
	switch r.operation() {
	case Create, Update, Delete, Connect:
	default:
		errs = append(errs, fmt.Errorf("operation: %q: want CREATE, UPDATE, DELETE or CONNECT", r.Operation))
	}
	if r.Object == nil && (r.Resource == "" || r.ObjectName == "") {
		errs = append(errs, errors.New("object: required (or resource and objectName)"))
	}
	if r.OldObject != nil && r.operation() != Update {
		errs = append(errs, errors.New("oldObject: only for UPDATE"))
	}
	if r.User != nil && r.User.Name == "" {
		errs = append(errs, errors.New("user.name: required"))
	}
	if r.User != nil && r.Token != "" {
		errs = append(errs, errors.New("user and token: give one"))
	}
	return errors.Join(errs...)
}

func (r *Request) operation() string {
	if r.Operation == "" {
		return Create
	}
	return strings.ToUpper(r.Operation)
}

// identity is who r is sent as.
func (r *Request) identity() server.Identity {
	if r.Token != "" {
		return server.Identity{Token: r.Token}
	}
	if r.User == nil {
		return server.Identity{}
	}
	return server.Identity{Name: r.User.Name, UID: r.User.UID, Groups: r.User.Groups, Extra: r.User.Extra}
}

// target is what r addresses: the resource of its object (or of
// Resource), namespace, name and subresource.
type target struct {
	gvr        schema.GroupVersionResource
	namespaced bool
	ns, name   string
}

// path is the object's path, or its subresource's.
func (t target) path(sub string) string {
	return server.ResourcePath(t.gvr, t.namespaced, t.ns, t.name, sub)
}

// newHTTPRequest is r as the HTTP request a client sends.
func (r *Request) newHTTPRequest(t target, body []byte) (*http.Request, error) {
	q := url.Values{}
	for k, v := range r.Query {
		q.Set(k, v)
	}
	if r.DryRun {
		q.Set("dryRun", metav1.DryRunAll)
	}
	var method, p string
	switch r.operation() {
	case Create:
		method, p = http.MethodPost, server.ResourcePath(t.gvr, t.namespaced, t.ns, "", "")
		if r.Subresource != "" {
			p = t.path(r.Subresource)
		}
	case Update:
		method, p = http.MethodPut, t.path(r.Subresource)
	case Delete:
		method, p = http.MethodDelete, t.path(r.Subresource)
		opts := metav1.DeleteOptions{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "DeleteOptions"}}
		if r.DryRun {
			opts.DryRun = []string{metav1.DryRunAll}
			q.Del("dryRun")
		}
		var err error
		if body, err = json.Marshal(opts); err != nil {
			return nil, err
		}
	case Connect:
		method, p = http.MethodPost, t.path(r.Subresource)
	}
	u := p
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequest(method, u, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "portcullis-admit")
	return req, nil
}

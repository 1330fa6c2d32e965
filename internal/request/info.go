package request

import (
	"context"
	"sync"

	"k8s.io/apiserver/pkg/authentication/user"
)

// Info is what the server derives from a request's method and path before
// any handler runs, following kube-apiserver's rules: resource requests have
// an API group, version, resource, optional subresource, namespace and name;
// everything else is a non-resource request identified by Path and Verb.
type Info struct {
	IsResourceRequest bool
	// Path is the URL path as received.
	Path string
	// Verb is get, list, watch, create, update, patch, delete or
	// deletecollection for resource requests, the lower-case HTTP method otherwise.
	Verb        string
	APIPrefix   string // "api" or "apis"
	APIGroup    string
	APIVersion  string
	Namespace   string
	Resource    string
	Subresource string
	Name        string
	// Parts are the path segments after the namespace, as kube-apiserver keeps them.
	Parts []string
	// FieldSelector and LabelSelector are the raw selectors of list, watch
	// and deletecollection requests, which authorizers may look at.
	FieldSelector string
	LabelSelector string
}

// State is the per-request place that every stage of the request path adds
// to: the authenticated user, audit annotations and response warnings.
// Safe for concurrent use (validating admission runs in parallel).
type State struct {
	Info *Info
	User user.Info
	// AuditID is the request's audit ID (also returned as Audit-Id).
	AuditID string
	// Trace, when set, has every stage record its decisions (AddStep)
	// for the decision trace.
	Trace bool

	mu          sync.Mutex
	steps       []Step
	annotations map[string]string
	annOrder    []string
	warnings    []string
}

// AddAnnotation records an audit annotation; the first value for a key wins,
// as in kube-apiserver.
func (s *State) AddAnnotation(key, value string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.annotations == nil {
		s.annotations = map[string]string{}
	}
	if _, ok := s.annotations[key]; ok {
		return
	}
	s.annotations[key] = value
	s.annOrder = append(s.annOrder, key)
}

// Annotations returns a copy of the audit annotations.
func (s *State) Annotations() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]string, len(s.annotations))
	for k, v := range s.annotations {
		out[k] = v
	}
	return out
}

// AddWarning records a warning for the client (sent as a "Warning: 299" header).
// Duplicate texts are sent once.
func (s *State) AddWarning(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, w := range s.warnings {
		if w == text {
			return
		}
	}
	s.warnings = append(s.warnings, text)
}

// Warnings returns the warnings in the order they were added.
func (s *State) Warnings() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.warnings...)
}

type stateKey struct{}

// WithState returns a context carrying s.
func WithState(ctx context.Context, s *State) context.Context {
	return context.WithValue(ctx, stateKey{}, s)
}

// StateFrom returns the request state carried by ctx, or nil.
func StateFrom(ctx context.Context) *State {
	s, _ := ctx.Value(stateKey{}).(*State)
	return s
}

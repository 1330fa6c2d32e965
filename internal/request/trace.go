package request

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"k8s.io/apiserver/pkg/authentication/user"
)

// TraceAnnotation is the audit annotation that carries a request's
// decision trace: portcullis's own key, beside kube-apiserver's, which
// stay as they are.
const TraceAnnotation = "trace.portcullis.dev/decision"

// The stages of the request path a trace step belongs to.
const (
	StageAuthentication = "authentication"
	StageAuthorization  = "authorization"
	StageAdmission      = "admission"
)

// Step is one decision on the request path: who authenticated the request
// and how, what the authorizer decided and why, and each admission plugin
// that ran, in order.
type Step struct {
	Stage string `json:"stage"`
	// Name is how the request was authenticated, what was authorized, or
	// the admission plugin.
	Name string `json:"name"`
	// Phase is an admission plugin's: mutate, mutate (reinvoked), validate.
	Phase string `json:"phase,omitempty"`
	// Outcome is "authenticated", "allow", "forbid", "admitted" or
	// "denied".
	Outcome string `json:"outcome"`
	// Detail says why: the user and groups, the authorizer's reason, a
	// denial's message.
	Detail string `json:"detail,omitempty"`
	// Annotations are the audit annotation keys the step added (which
	// name the policies, bindings and webhooks that took part).
	Annotations []string `json:"annotations,omitempty"`
	// Micros is how long the step took, in microseconds.
	Micros int64 `json:"us,omitempty"`
}

// AddStep appends a step to the trace, when the state keeps one.
func (s *State) AddStep(st Step) {
	if s == nil || !s.Trace {
		return
	}
	s.mu.Lock()
	if s.steps == nil {
		// Enough for the default chain's plugins, both phases.
		s.steps = make([]Step, 0, 48)
	}
	s.steps = append(s.steps, st)
	s.mu.Unlock()
}

// AddStepSince is AddStep for a step that began when the request had n
// audit annotations: the keys added since are the step's Annotations.
// One lock for both, as it runs once per admission plugin.
func (s *State) AddStepSince(st Step, n int) {
	if s == nil || !s.Trace {
		return
	}
	s.mu.Lock()
	if n < len(s.annOrder) {
		st.Annotations = append([]string(nil), s.annOrder[n:]...)
	}
	if s.steps == nil {
		s.steps = make([]Step, 0, 48)
	}
	s.steps = append(s.steps, st)
	s.mu.Unlock()
}

// Steps returns the trace's steps in order.
func (s *State) Steps() []Step {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Step(nil), s.steps...)
}

// AnnotationCount is how many audit annotations the request has so far,
// for AddStepSince.
func (s *State) AnnotationCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.annOrder)
}

// TraceJSON returns the steps as the trace annotation's value, "" when
// there are none.
func (s *State) TraceJSON() string {
	steps := s.Steps()
	if len(steps) == 0 {
		return ""
	}
	b, err := json.Marshal(steps)
	if err != nil {
		return ""
	}
	return string(b)
}

// Since is the duration since start in whole microseconds, at least 1 so
// that a step that ran is told from one that was not timed.
func Since(start time.Time) int64 {
	return max(time.Since(start).Microseconds(), 1)
}

// credentialID is the user extra kube-apiserver's authenticators set to
// name the credential (X509SHA256=..., JTI=...).
const credentialID = "authentication.kubernetes.io/credential-id"

// AuthenticationMethod names how u was authenticated on r, from what the
// credential left behind: the client certificate's fingerprint, a service
// account token's ID, a bearer token, a front proxy's client certificate.
func AuthenticationMethod(r *http.Request, u user.Info) string {
	if u.GetName() == user.Anonymous {
		return "anonymous"
	}
	for _, id := range u.GetExtra()[credentialID] {
		switch {
		case strings.HasPrefix(id, "X509SHA256="):
			return "x509 client certificate"
		case strings.HasPrefix(id, "JTI="):
			return "service account token"
		}
	}
	if strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
		if strings.HasPrefix(u.GetName(), "system:serviceaccount:") {
			return "service account token"
		}
		return "bearer token"
	}
	if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
		return "front proxy (request headers)"
	}
	return "unknown"
}

// DescribeUser is u as a trace shows it: name, uid and groups.
func DescribeUser(u user.Info) string {
	var b strings.Builder
	b.WriteString(u.GetName())
	if uid := u.GetUID(); uid != "" {
		b.WriteString(" (uid " + uid + ")")
	}
	if g := u.GetGroups(); len(g) > 0 {
		b.WriteString(" groups " + strings.Join(g, ","))
	}
	return b.String()
}

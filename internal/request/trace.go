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

// The phases of admission steps.
const (
	PhaseMutate          = "mutate"
	PhaseMutateReinvoked = "mutate (reinvoked)"
	PhaseValidate        = "validate"
)

// Step is one decision on the request path: who authenticated the request
// and how, what the authorizer decided and why, and each admission plugin
// that ran, in order; the parts of a plugin's step are the decisions of
// its policies, bindings and webhooks.
type Step struct {
	// Stage is empty for a part: its plugin's step has it.
	Stage string `json:"stage,omitempty"`
	// Name is how the request was authenticated, what was authorized, or
	// the admission plugin; empty for a part, which its Rule names.
	Name string `json:"name,omitempty"`
	// Rule names what decided a part: "policy P, binding B", "webhook W
	// (configuration C)".
	Rule string `json:"rule,omitempty"`
	// Phase is an admission plugin's: mutate, mutate (reinvoked), validate.
	Phase string `json:"phase,omitempty"`
	// Outcome is "authenticated", "allow", "forbid", "admitted" or
	// "denied"; a part's also "mutated", "unchanged", "warned",
	// "audited", "error" and "error (failurePolicy Ignore)".
	Outcome string `json:"outcome"`
	// Detail says why: the user and groups, the authorizer's reason, a
	// denial's message.
	Detail string `json:"detail,omitempty"`
	// Annotations are the audit annotation keys the step added (which
	// name the policies, bindings and webhooks that took part).
	Annotations []string `json:"annotations,omitempty"`
	// Micros is how long the step took, in microseconds.
	Micros int64 `json:"us,omitempty"`
	// Parts are the decisions an admission plugin's step is made of, in
	// the order they were taken (a parallel batch in its own order).
	Parts []Step `json:"parts,omitempty"`
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

// Tracing reports whether s keeps a trace: a producer of parts checks it
// before it builds one.
func (s *State) Tracing() bool { return s != nil && s.Trace }

// AddPart records a part of the admission step being taken, which
// AddStepAt makes the step's when the plugin is done.
//
// Until then the part waits at the end of the steps: it takes no field
// of its own and costs one lock.
func (s *State) AddPart(p Step) {
	if s == nil || !s.Trace {
		return
	}
	s.mu.Lock()
	if s.steps == nil {
		s.steps = make([]Step, 0, 48)
	}
	s.steps = append(s.steps, p)
	s.mu.Unlock()
}

// Mark is where the trace stood when a step began: the audit annotations
// and the steps (and so the parts) it had.
type Mark struct{ annotations, steps int }

// Mark returns where the trace stands, for AddStepAt.
func (s *State) Mark() Mark {
	if s == nil {
		return Mark{}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return Mark{annotations: len(s.annOrder), steps: len(s.steps)}
}

// AddStepAt appends a step that began at m: the audit annotation keys
// added since are its Annotations, the parts added since its Parts. One
// lock for all, as it runs once per admission plugin.
func (s *State) AddStepAt(st Step, m Mark) {
	if s == nil || !s.Trace {
		return
	}
	s.mu.Lock()
	if m.annotations < len(s.annOrder) {
		st.Annotations = append([]string(nil), s.annOrder[m.annotations:]...)
	}
	if m.steps < len(s.steps) {
		st.Parts = append([]Step(nil), s.steps[m.steps:]...)
		clear(s.steps[m.steps:])
		s.steps = s.steps[:m.steps]
	}
	if s.steps == nil {
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

package audit

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/portcullis/portcullis/internal/request"
)

const (
	maxUserAgent    = 1024
	truncatedSuffix = "...TRUNCATED"
)

// Recorder carries one request's audit Event through its stages. A nil
// *Recorder is valid and records nothing, so handlers can call
// RecorderFrom(ctx).SetRequestObject(...) whether or not the request is
// audited. Safe for concurrent use.
type Recorder struct {
	sink        Sink
	decision    Decision
	state       *request.State
	longRunning bool

	mu       sync.Mutex
	event    auditv1.Event
	codeSeen bool
	done     bool
}

// Begin starts recording a request the policy decided to audit and emits
// its RequestReceived stage (unless omitted). It returns a nil Recorder
// when d does not audit the request. st supplies the request Info, user and
// audit ID; received is when the server got the request. An error means the
// RequestReceived event could not be stored; kube-apiserver then refuses
// the request, and so does Middleware.
func Begin(sink Sink, d Decision, st *request.State, req *http.Request, received time.Time) (*Recorder, error) {
	if !d.Audited() || sink == nil {
		return nil, nil
	}
	r := newRecorder(sink, d, st, req, received)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.emit(auditv1.StageRequestReceived); err != nil {
		return nil, err
	}
	return r, nil
}

// newRecorder builds the event of a request without emitting any stage.
func newRecorder(sink Sink, d Decision, st *request.State, req *http.Request, received time.Time) *Recorder {
	if st == nil {
		st = &request.State{}
	}
	info := st.Info
	if info == nil {
		info = request.Parse(req)
	}
	r := &Recorder{sink: sink, decision: d, state: st, longRunning: isLongRunning(info)}
	ev := &r.event
	ev.Level = d.Level
	ev.AuditID = types.UID(st.AuditID)
	ev.RequestURI = req.URL.RequestURI()
	ev.Verb = info.Verb
	ev.User = userInfo(st.User)
	ev.UserAgent = truncateUserAgent(req.UserAgent())
	for _, ip := range utilnet.SourceIPs(req) {
		ev.SourceIPs = append(ev.SourceIPs, ip.String())
	}
	if info.IsResourceRequest {
		ev.ObjectRef = &auditv1.ObjectReference{
			Resource:    info.Resource,
			Namespace:   info.Namespace,
			Name:        info.Name,
			APIGroup:    info.APIGroup,
			APIVersion:  info.APIVersion,
			Subresource: info.Subresource,
		}
	}
	ev.RequestReceivedTimestamp = metav1.NewMicroTime(received)
	return r
}

func userInfo(u user.Info) authnv1.UserInfo {
	if u == nil {
		return authnv1.UserInfo{}
	}
	out := authnv1.UserInfo{Username: u.GetName(), UID: u.GetUID(), Groups: u.GetGroups()}
	if extra := u.GetExtra(); len(extra) > 0 {
		out.Extra = make(map[string]authnv1.ExtraValue, len(extra))
		for k, v := range extra {
			out.Extra[k] = authnv1.ExtraValue(v)
		}
	}
	return out
}

func truncateUserAgent(ua string) string {
	if len(ua) > maxUserAgent {
		return ua[:maxUserAgent] + truncatedSuffix
	}
	return ua
}

// emit hands the event to the sink as stage s, unless the policy omits s.
// Called with r.mu held.
func (r *Recorder) emit(s auditv1.Stage) error {
	if r.decision.Omits(s) {
		return nil
	}
	ev := &r.event
	ev.Stage = s
	if s == auditv1.StageRequestReceived {
		ev.StageTimestamp = ev.RequestReceivedTimestamp
	} else {
		ev.StageTimestamp = metav1.NewMicroTime(time.Now())
	}
	ev.Annotations = nil
	if ann := r.state.Annotations(); len(ann) > 0 {
		// Webhook patches carry request content: like kube-apiserver, keep
		// them only at Request level and above.
		if !levelAtLeast(r.decision.Level, auditv1.LevelRequest) {
			for k := range ann {
				if strings.HasPrefix(k, requestLevelAnnotationPrefix) {
					delete(ann, k)
				}
			}
		}
		if len(ann) > 0 {
			ev.Annotations = ann
		}
	}
	if s == auditv1.StageResponseComplete || s == auditv1.StagePanic {
		// The decision trace, once the request is decided.
		if trace := r.state.TraceJSON(); trace != "" {
			if ev.Annotations == nil {
				ev.Annotations = map[string]string{}
			}
			ev.Annotations[request.TraceAnnotation] = trace
		}
	}
	if err := r.sink.WriteEvents(ev); err != nil {
		return fmt.Errorf("audit: storing %s event: %w", s, err)
	}
	return nil
}

// requestLevelAnnotationPrefix marks annotations recorded only at Request
// level and above (the patches mutating webhooks applied).
const requestLevelAnnotationPrefix = "patch.webhook.admission.k8s.io/"

// Level is the level the request is audited at; LevelNone for nil.
func (r *Recorder) Level() auditv1.Level {
	if r == nil {
		return auditv1.LevelNone
	}
	return r.decision.Level
}

// SetImpersonatedUser records the user the request acts as; the event's
// user stays the authenticated one.
func (r *Recorder) SetImpersonatedUser(u user.Info) {
	if r == nil || u == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	ui := userInfo(u)
	r.event.ImpersonatedUser = &ui
}

// SetRequestObject records the request body: the object as JSON (or YAML,
// converted), or a patch. At every level its metadata fills in the parts of
// objectRef the URL did not give (the name of a created object, uid,
// resourceVersion); the body itself is kept at Request and RequestResponse.
func (r *Recorder) SetRequestObject(body []byte) {
	if r == nil || len(body) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return
	}
	js := toJSON(body)
	if js == nil {
		return
	}
	r.fillObjectRef(js)
	if levelAtLeast(r.decision.Level, auditv1.LevelRequest) {
		r.event.RequestObject = r.unknown(js, body)
	}
}

// SetResponseObject records the response body, kept at RequestResponse
// only. Handlers answering with a Status also call SetResponseStatus.
func (r *Recorder) SetResponseObject(body []byte) {
	if r == nil || len(body) == 0 || !levelAtLeast(r.decision.Level, auditv1.LevelRequestResponse) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return
	}
	if js := toJSON(body); js != nil {
		r.event.ResponseObject = r.unknown(js, body)
	}
}

// unknown wraps a JSON body for the event, dropping managed fields if the
// policy says so. orig is what the caller passed: it may be reused by the
// caller, so it is never kept.
func (r *Recorder) unknown(js, orig []byte) *runtime.Unknown {
	if r.decision.OmitManagedFields {
		js = withoutManagedFields(js)
	}
	if len(js) > 0 && len(orig) > 0 && &js[0] == &orig[0] {
		js = append([]byte(nil), js...)
	}
	return &runtime.Unknown{Raw: js, ContentType: runtime.ContentTypeJSON}
}

// SetResponseStatus records the Status the handler answers with (errors,
// deletions). Only its bounded fields are kept, at every level; the code is
// the one actually written if the header is already out.
func (r *Recorder) SetResponseStatus(s *metav1.Status) {
	if r == nil || s == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return
	}
	st := &metav1.Status{Status: s.Status, Message: s.Message, Reason: s.Reason, Details: s.Details, Code: s.Code}
	if r.codeSeen && r.event.ResponseStatus != nil {
		st.Code = r.event.ResponseStatus.Code
	}
	r.event.ResponseStatus = st
}

// ResponseStarted records the response code when the header goes out; for
// long-running requests (watch, exec, logs, ...) it also emits the
// ResponseStarted stage. Only the first call counts.
func (r *Recorder) ResponseStarted(code int) error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done || r.codeSeen {
		return nil
	}
	r.codeSeen = true
	if r.event.ResponseStatus == nil {
		r.event.ResponseStatus = &metav1.Status{}
	}
	r.event.ResponseStatus.Code = int32(code)
	if r.longRunning {
		return r.emit(auditv1.StageResponseStarted)
	}
	return nil
}

// End emits ResponseComplete. If the handler wrote nothing, the response
// is recorded as kube-apiserver does: 200, "Connection closed early".
func (r *Recorder) End() error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return nil
	}
	r.done = true
	var errStarted error
	if r.event.ResponseStatus == nil {
		r.event.ResponseStatus = &metav1.Status{
			Code:    http.StatusOK,
			Status:  metav1.StatusSuccess,
			Message: "Connection closed early",
		}
		if r.longRunning && !r.codeSeen {
			errStarted = r.emit(auditv1.StageResponseStarted)
		}
	}
	if err := r.emit(auditv1.StageResponseComplete); err != nil {
		return err
	}
	return errStarted
}

// Panic emits the Panic stage with a 500 status carrying v; no
// ResponseComplete follows.
func (r *Recorder) Panic(v any) error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return nil
	}
	r.done = true
	r.event.ResponseStatus = &metav1.Status{
		Code:    http.StatusInternalServerError,
		Status:  metav1.StatusFailure,
		Reason:  metav1.StatusReasonInternalError,
		Message: fmt.Sprintf("APIServer panic'd: %v", v),
	}
	return r.emit(auditv1.StagePanic)
}

func levelAtLeast(have, want auditv1.Level) bool {
	return levelRank(have) >= levelRank(want)
}

func levelRank(l auditv1.Level) int {
	switch l {
	case auditv1.LevelMetadata:
		return 1
	case auditv1.LevelRequest:
		return 2
	case auditv1.LevelRequestResponse:
		return 3
	}
	return 0
}

type recorderKey struct{}

// WithRecorder returns a context carrying r.
func WithRecorder(ctx context.Context, r *Recorder) context.Context {
	return context.WithValue(ctx, recorderKey{}, r)
}

// RecorderFrom returns the request's Recorder, or nil when the request is
// not audited.
func RecorderFrom(ctx context.Context) *Recorder {
	r, _ := ctx.Value(recorderKey{}).(*Recorder)
	return r
}

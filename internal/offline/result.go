package offline

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/portcullis/portcullis/internal/request"
	"github.com/portcullis/portcullis/internal/server"
	"github.com/portcullis/portcullis/internal/why"
)

// Result is what came of one request, as `portcullis admit -o json`
// prints it.
type Result struct {
	Name string `json:"name,omitempty"`
	// Request is what was asked: "create pods web in default".
	Request string `json:"request"`
	// AuditID is the request's audit ID.
	AuditID string `json:"auditID,omitempty"`
	// User is the authenticated identity (after impersonation).
	User string `json:"user,omitempty"`
	// Allowed is true when the server answered with success.
	Allowed bool `json:"allowed"`
	Code    int  `json:"code"`
	// Status is the error answered, as kubectl prints it, when not Allowed.
	Status *metav1.Status `json:"status,omitempty"`
	// Object is the object answered: the stored (or, on a dry run, the
	// would-be stored) object after every mutation.
	Object map[string]any `json:"object,omitempty"`
	// Warnings are the warnings answered, in order.
	Warnings []string `json:"warnings,omitempty"`
	// Annotations are the request's audit annotations (kube-apiserver's
	// keys), which the steps name.
	Annotations map[string]string `json:"annotations,omitempty"`
	// Steps are the decision trace: authentication, authorization and
	// each admission plugin, in order.
	Steps []request.Step `json:"steps,omitempty"`
	// Micros is how long the request took in process, in microseconds.
	Micros int64 `json:"us"`
}

// newResult reads the answer to req and the request's state.
func newResult(req *Request, t resolved, resp *server.Response) *Result {
	verb := strings.ToLower(req.operation())
	if req.Subresource != "" {
		verb += " " + req.Subresource + " of"
	}
	r := &Result{Name: req.Name, Request: verb + " " + t.describe(), Code: resp.Code, Allowed: isSuccess(resp.Code)}
	if req.DryRun {
		r.Request += " (dry run)"
	}
	if st := resp.State; st != nil {
		r.AuditID = st.AuditID
		if st.User != nil {
			r.User = request.DescribeUser(st.User)
		}
		r.Steps = st.Steps()
		if ann := st.Annotations(); len(ann) > 0 {
			r.Annotations = ann
		}
	}
	r.Warnings = warnings(resp.Header)
	var body map[string]any
	if json.Unmarshal(resp.Body, &body) != nil {
		if !r.Allowed {
			r.Status = &metav1.Status{Status: metav1.StatusFailure, Code: int32(resp.Code), Message: strings.TrimSpace(string(resp.Body))}
		}
		return r
	}
	if body["kind"] == "Status" && (!r.Allowed || body["status"] == metav1.StatusFailure) {
		var s metav1.Status
		if json.Unmarshal(resp.Body, &s) == nil {
			r.Status = &s
		}
		return r
	}
	r.Object = body
	return r
}

// warnings are the texts of a response's "299" Warning headers.
func warnings(h http.Header) []string {
	var out []string
	for _, v := range h.Values("Warning") {
		// 299 - "text"
		_, rest, ok := strings.Cut(v, " - ")
		if !ok {
			out = append(out, v)
			continue
		}
		var text string
		if _, err := fmt.Sscanf(rest, "%q", &text); err != nil {
			text = strings.Trim(rest, `"`)
		}
		out = append(out, text)
	}
	return out
}

// Outcome is "admitted" or "denied".
func (r *Result) Outcome() string {
	if r.Allowed {
		return "admitted"
	}
	return "denied"
}

// KubectlError is the line kubectl prints for the error answered, "" when
// none: Error from server (Reason): message.
func (r *Result) KubectlError() string {
	if r.Status == nil {
		return ""
	}
	if r.Status.Reason == "" || r.Status.Reason == metav1.StatusReasonUnknown {
		return "Error from server: " + r.Status.Message
	}
	return fmt.Sprintf("Error from server (%s): %s", r.Status.Reason, r.Status.Message)
}

// WriteOptions choose what Write prints beyond the decisions.
type WriteOptions struct {
	// Object prints the final object of an admitted request.
	Object bool
	// AllSteps prints every admission plugin, also those that admitted
	// without a word (most of the default chain, most of the time).
	AllSteps bool
}

// Write prints r for people: the decision trace as `portcullis why`
// prints it, then warnings and the object or the error.
func (r *Result) Write(w io.Writer, opts WriteOptions) error {
	steps, quiet := r.Steps, 0
	if !opts.AllSteps {
		steps, quiet = notable(r.Steps)
	}
	x := &why.Explanation{AuditID: r.AuditID, Request: r.Request, User: r.User, Code: int32(r.Code),
		Steps: steps, Annotations: r.Annotations, Traced: true}
	if r.Name != "" {
		x.Request = r.Name + ": " + x.Request
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s (%d, %s)\n", strings.ToUpper(r.Outcome()[:1])+r.Outcome()[1:], x.Request, r.Code, time.Duration(r.Micros)*time.Microsecond)
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	if err := x.WriteSteps(w); err != nil {
		return err
	}
	b.Reset()
	if quiet > 0 {
		fmt.Fprintf(&b, "  (%d more admission plugins admitted without a word)\n", quiet)
	}
	for _, wt := range r.Warnings {
		fmt.Fprintf(&b, "Warning: %s\n", wt)
	}
	if e := r.KubectlError(); e != "" {
		b.WriteString(e + "\n")
	}
	if opts.Object && r.Object != nil {
		y, err := yaml.Marshal(withoutManagedFields(r.Object))
		if err != nil {
			return err
		}
		b.WriteString("Object:\n")
		for _, line := range strings.SplitAfter(strings.TrimRight(string(y), "\n"), "\n") {
			b.WriteString("  " + line)
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// withoutManagedFields is obj without metadata.managedFields, which say
// nothing about admission and take most of the screen.
func withoutManagedFields(obj map[string]any) map[string]any {
	md, ok := obj["metadata"].(map[string]any)
	if !ok {
		return obj
	}
	if _, ok := md["managedFields"]; !ok {
		return obj
	}
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	m := make(map[string]any, len(md))
	for k, v := range md {
		if k != "managedFields" {
			m[k] = v
		}
	}
	out["metadata"] = m
	return out
}

// notable are the steps worth a reader's time: authentication,
// authorization, and the admission plugins that denied, or added audit
// annotations or parts; quiet counts the others.
func notable(steps []request.Step) (out []request.Step, quiet int) {
	for _, s := range steps {
		if s.Stage == request.StageAdmission && s.Outcome == "admitted" && len(s.Annotations) == 0 && len(s.Parts) == 0 {
			quiet++
			continue
		}
		out = append(out, s)
	}
	return out, quiet
}

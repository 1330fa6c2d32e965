package authz

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/portcullis/portcullis/internal/request"
)

// Authorizer is what the chain needs of an authorizer: an unconditional
// decision. (authorizer.Authorizer adds conditional authorization, which
// portcullis does not use; Full adapts.)
type Authorizer = authorizer.UnconditionalAuthorizer

// Union asks each authorizer in order; the first that allows or denies
// decides. Errors are remembered and returned with NoOpinion when nobody
// decides, as kube-apiserver's union does.
type Union []Authorizer

// Authorize implements authorizer.Authorizer.
func (u Union) Authorize(ctx context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	var reasons []string
	var errs []error
	for _, az := range u {
		d, reason, err := az.Authorize(ctx, a)
		if err != nil {
			errs = append(errs, err)
		}
		if reason != "" {
			reasons = append(reasons, reason)
		}
		switch d {
		case authorizer.DecisionAllow, authorizer.DecisionDeny:
			return d, reason, err
		}
	}
	return authorizer.DecisionNoOpinion, strings.Join(reasons, "\n"), errors.Join(errs...)
}

// Superuser allows every request of a member of system:masters, before
// any other authorizer is asked (kube-apiserver's privileged group).
var Superuser = authorizer.AuthorizerFunc(func(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	if u := a.GetUser(); u != nil {
		for _, g := range u.GetGroups() {
			if g == user.SystemPrivilegedGroup {
				return authorizer.DecisionAllow, "", nil
			}
		}
	}
	return authorizer.DecisionNoOpinion, "", nil
})

// AttributesFor derives the authorization attributes of a request,
// including the selectors of collection requests (the Node authorizer lets
// a kubelet list only its own pods, by spec.nodeName).
func AttributesFor(info *request.Info, u user.Info) authorizer.AttributesRecord {
	a := authorizer.AttributesRecord{
		User:            u,
		Verb:            info.Verb,
		Namespace:       info.Namespace,
		APIGroup:        info.APIGroup,
		APIVersion:      info.APIVersion,
		Resource:        info.Resource,
		Subresource:     info.Subresource,
		Name:            info.Name,
		ResourceRequest: info.IsResourceRequest,
		Path:            info.Path,
	}
	if info.FieldSelector != "" {
		if sel, err := fields.ParseSelector(info.FieldSelector); err != nil {
			a.FieldSelectorParsingErr = err
		} else {
			a.FieldSelectorRequirements = sel.Requirements()
		}
	}
	if info.LabelSelector != "" {
		if sel, err := labels.Parse(info.LabelSelector); err != nil {
			a.LabelSelectorParsingErr = err
		} else {
			a.LabelSelectorRequirements, _ = sel.Requirements()
		}
	}
	return a
}

// ForbiddenMessage is kube-apiserver's text for a refused request.
func ForbiddenMessage(a authorizer.Attributes) string {
	name := ""
	if u := a.GetUser(); u != nil {
		name = u.GetName()
	}
	if !a.IsResourceRequest() {
		return fmt.Sprintf("User %q cannot %s path %q", name, a.GetVerb(), a.GetPath())
	}
	res := a.GetResource()
	if sub := a.GetSubresource(); sub != "" {
		res += "/" + sub
	}
	if ns := a.GetNamespace(); ns != "" {
		return fmt.Sprintf("User %q cannot %s resource %q in API group %q in the namespace %q", name, a.GetVerb(), res, a.GetAPIGroup(), ns)
	}
	return fmt.Sprintf("User %q cannot %s resource %q in API group %q at the cluster scope", name, a.GetVerb(), res, a.GetAPIGroup())
}

// Forbidden is the 403 error of a refused request.
func Forbidden(a authorizer.Attributes, reason string) error {
	msg := ForbiddenMessage(a)
	if reason != "" {
		msg += ": " + reason
	}
	return apierrors.NewForbidden(schema.GroupResource{Group: a.GetAPIGroup(), Resource: a.GetResource()}, a.GetName(), errors.New(msg))
}

// ErrorWriter writes API errors (rest.Responder).
type ErrorWriter interface {
	Error(w http.ResponseWriter, r *http.Request, err error)
}

// decisionKeys are the audit annotations the authorization step adds
// (only the reason when the authorizer failed), which the trace names.
var decisionKeys = []string{"authorization.k8s.io/decision", "authorization.k8s.io/reason"}

// Filter refuses requests the authorizer does not allow with 403, and
// records the decision in the audit annotations as kube-apiserver does.
func Filter(next http.Handler, az Authorizer, out ErrorWriter) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := request.StateFrom(r.Context())
		attrs := AttributesFor(st.Info, st.User)
		start := time.Now()
		d, reason, err := az.Authorize(r.Context(), attrs)
		if st.Trace {
			outcome, detail, keys := "forbid", reason, decisionKeys
			switch {
			case d == authorizer.DecisionAllow:
				outcome = "allow"
			case err != nil:
				outcome, detail, keys = "error", err.Error(), decisionKeys[1:]
			}
			st.AddStep(request.Step{Stage: request.StageAuthorization, Name: describe(attrs), Outcome: outcome, Detail: detail,
				Annotations: keys, Micros: request.Since(start)})
		}
		if d == authorizer.DecisionAllow {
			st.AddAnnotation("authorization.k8s.io/decision", "allow")
			st.AddAnnotation("authorization.k8s.io/reason", reason)
			next.ServeHTTP(w, r)
			return
		}
		if err != nil {
			// kube-apiserver answers an authorizer that failed to decide
			// with a plain-text 500 naming the request URI, and records
			// only the reason "internal error".
			st.AddAnnotation("authorization.k8s.io/reason", "internal error")
			InternalError(w, r, err)
			return
		}
		st.AddAnnotation("authorization.k8s.io/decision", "forbid")
		st.AddAnnotation("authorization.k8s.io/reason", reason)
		out.Error(w, r, Forbidden(attrs, reason))
	})
}

// sanitizer escapes what kube-apiserver escapes in plain-text errors.
var sanitizer = strings.NewReplacer(`&`, "&amp;", `<`, "&lt;", `>`, "&gt;")

// InternalError writes kube-apiserver's plain-text 500 of a filter that
// failed (responsewriters.InternalError): not a Status object.
func InternalError(w http.ResponseWriter, r *http.Request, err error) {
	http.Error(w, sanitizer.Replace(fmt.Sprintf("Internal Server Error: %q: %v", r.RequestURI, err)), http.StatusInternalServerError)
}

// Full adapts an Authorizer to authorizer.Authorizer for libraries that
// need the conditions-aware interface (the CEL authz library).
func Full(a Authorizer) authorizer.Authorizer { return full{a} }

type full struct{ Authorizer }

func (f full) ConditionsAwareAuthorize(ctx context.Context, a authorizer.Attributes) authorizer.ConditionsAwareDecision {
	return authorizer.ConditionsAwareDecisionFromParts(f.Authorize(ctx, a))
}

func (f full) EvaluateConditions(context.Context, authorizer.ConditionsAwareDecision, authorizer.ConditionsData) (authorizer.Decision, string, error) {
	return authorizer.DecisionDeny, "", authorizer.ErrorConditionEvaluationNotSupported
}

// PublicInfo allows everyone to read the health endpoints and /version,
// which kube-apiserver grants through the system:public-info-viewer role,
// and authenticated users to ask who they are and what they may do, which
// it grants through system:basic-user. It stands in for those bootstrap
// roles where RBAC is not in the chain.
var PublicInfo = authorizer.AuthorizerFunc(func(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	if a.IsResourceRequest() {
		if a.GetVerb() == "create" && a.GetUser() != nil && slices.Contains(a.GetUser().GetGroups(), user.AllAuthenticated) {
			switch a.GetAPIGroup() + "/" + a.GetResource() {
			case "authentication.k8s.io/selfsubjectreviews", "authorization.k8s.io/selfsubjectaccessreviews", "authorization.k8s.io/selfsubjectrulesreviews":
				return authorizer.DecisionAllow, "", nil
			}
		}
		return authorizer.DecisionNoOpinion, "", nil
	}
	if a.GetVerb() != "get" {
		return authorizer.DecisionNoOpinion, "", nil
	}
	switch p := a.GetPath(); {
	case p == "/healthz" || p == "/livez" || p == "/readyz" || p == "/version" || p == "/version/",
		strings.HasPrefix(p, "/healthz/") || strings.HasPrefix(p, "/livez/") || strings.HasPrefix(p, "/readyz/"):
		return authorizer.DecisionAllow, "", nil
	}
	return authorizer.DecisionNoOpinion, "", nil
})

// describe is what a trace says was asked: "create pods in default".
func describe(a authorizer.Attributes) string {
	if !a.IsResourceRequest() {
		return a.GetVerb() + " " + a.GetPath()
	}
	res := a.GetResource()
	if g := a.GetAPIGroup(); g != "" {
		res += "." + g
	}
	if sub := a.GetSubresource(); sub != "" {
		res += "/" + sub
	}
	out := a.GetVerb() + " " + res
	if n := a.GetName(); n != "" {
		out += " " + n
	}
	if ns := a.GetNamespace(); ns != "" {
		out += " in " + ns
	}
	return out
}

package dispatch

import (
	"context"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/policy/matching"
	"github.com/portcullis/portcullis/internal/admission/policy/params"
	"github.com/portcullis/portcullis/internal/admission/policy/policyset"
)

// readyTimeout is how long a request waits for the policies to load.
const readyTimeout = 10 * time.Second

// Config is what the request side needs from a plugin's options.
type Config struct {
	// Namespaces reads namespaces (nil: no namespace exists).
	Namespaces matching.NamespaceGetter
	// Params reads param objects (nil: no paramKind can be resolved).
	Params params.Source
	// Static marks the plugin of manifest-based policies.
	Static bool
	// Ready is closed once the policies have been loaded (nil: ready).
	Ready <-chan struct{}
}

// Candidates returns the request as the matchers see it and the entries
// of set whose rules may match it, appended to buf: none for a request
// exempt from policies, or the 403 that refuses a request when the
// policies did not load in time.
func Candidates[P policyset.CompiledPolicy, B policyset.CompiledBinding](ctx context.Context, a *admission.Attributes, set *policyset.Set[P, B], cfg *Config, buf []*policyset.Entry[P, B]) (*matching.Request, []*policyset.Entry[P, B], error) {
	if Exempt(a.Resource.GroupResource(), cfg.Static) {
		return nil, buf, nil
	}
	if !waitReady(ctx, cfg.Ready) {
		return nil, buf, Forbidden(a, ErrNotReady)
	}
	req := matching.NewRequest(ctx, a, cfg.Namespaces)
	return req, set.Current().Index.Lookup(buf, req), nil
}

func waitReady(ctx context.Context, ready <-chan struct{}) bool {
	if ready == nil {
		return true
	}
	select {
	case <-ready:
		return true
	default:
	}
	t := time.NewTimer(readyTimeout)
	defer t.Stop()
	select {
	case <-ready:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	return false
}

// excludedResources are never subject to policies: non-persisted reviews
// whose interception could lock clients out of the cluster.
var excludedResources = map[schema.GroupResource]bool{
	{Group: "authentication.k8s.io", Resource: "selfsubjectreviews"}:       true,
	{Group: "authentication.k8s.io", Resource: "tokenreviews"}:             true,
	{Group: "authorization.k8s.io", Resource: "localsubjectaccessreviews"}: true,
	{Group: "authorization.k8s.io", Resource: "selfsubjectaccessreviews"}:  true,
	{Group: "authorization.k8s.io", Resource: "selfsubjectrulesreviews"}:   true,
	{Group: "authorization.k8s.io", Resource: "subjectaccessreviews"}:      true,
}

// policyResources are exempt from policies created through the API, which
// could otherwise prevent their own repair.
var policyResources = map[schema.GroupResource]bool{
	{Group: admissionregistrationv1.GroupName, Resource: "validatingadmissionpolicies"}:       true,
	{Group: admissionregistrationv1.GroupName, Resource: "validatingadmissionpolicybindings"}: true,
	{Group: admissionregistrationv1.GroupName, Resource: "mutatingadmissionpolicies"}:         true,
	{Group: admissionregistrationv1.GroupName, Resource: "mutatingadmissionpolicybindings"}:   true,
}

// Exempt reports whether requests on gr bypass policies: reviews always,
// the admission policy resources unless static.
func Exempt(gr schema.GroupResource, static bool) bool {
	return excludedResources[gr] || (!static && policyResources[gr])
}

// Forbidden is kube-apiserver's admission error: 403 on the resource and
// the object's name (its generateName before one is generated).
func Forbidden(a *admission.Attributes, err error) *apierrors.StatusError {
	return apierrors.NewForbidden(a.Resource.GroupResource(), admission.ObjectName(a), err)
}

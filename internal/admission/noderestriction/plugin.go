package noderestriction

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"

	certificatesv1 "k8s.io/api/certificates/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	resourcev1 "k8s.io/api/resource/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/portcullis/portcullis/internal/admission"
)

// Name is the plugin's name in --enable-admission-plugins.
const Name = "NodeRestriction"

// Options are the feature gates and the authorizer the plugin consults.
// The zero value is kube-apiserver's default: the token audience
// restriction on, with no authorizer to grant further audiences.
type Options struct {
	// Authorizer answers the request-serviceaccounts-token-audience check
	// for an audience the pod does not name (nil grants nothing). It should
	// be the server's authorizer chain, so that RBAC rules grant audiences.
	Authorizer authorizer.UnconditionalAuthorizer
	// DisableAudienceRestriction turns the ServiceAccountNodeAudienceRestriction
	// feature gate off: nodes then request tokens for any audience.
	DisableAudienceRestriction bool
	// AllowInsecureKubeletCSRs is the AllowInsecureKubeletCertificateSigningRequests
	// feature gate: nodes then create kubelet CSRs for any common name.
	AllowInsecureKubeletCSRs bool
}

// Plugin is NodeRestriction.
type Plugin struct {
	get  Getter
	opts Options
}

var _ admission.Mutator = (*Plugin)(nil)

// New returns the plugin reading stored objects through get.
func New(get Getter, opts Options) (*Plugin, error) {
	if isNil(get) {
		return nil, ErrNoGetter
	}
	return &Plugin{get: get, opts: opts}, nil
}

var (
	podsGR           = schema.GroupResource{Resource: "pods"}
	nodesGR          = schema.GroupResource{Resource: "nodes"}
	claimsGR         = schema.GroupResource{Resource: "persistentvolumeclaims"}
	serviceAccountGR = schema.GroupResource{Resource: "serviceaccounts"}
	leasesGR         = schema.GroupResource{Group: coordinationv1.GroupName, Resource: "leases"}
	csiNodesGR       = schema.GroupResource{Group: storagev1.GroupName, Resource: "csinodes"}
	sliceGR          = schema.GroupResource{Group: resourcev1.GroupName, Resource: "resourceslices"}
	csrGR            = schema.GroupResource{Group: certificatesv1.GroupName, Resource: "certificatesigningrequests"}
	podCertGR        = schema.GroupResource{Group: certificatesv1.GroupName, Resource: "podcertificaterequests"}
)

// Admit implements admission.Mutator. It changes nothing; it runs in the
// mutating stage because kube-apiserver runs it there.
func (p *Plugin) Admit(ctx context.Context, a *admission.Attributes) error {
	if a == nil {
		return nil
	}
	switch a.Operation {
	case admission.Create, admission.Update, admission.Delete:
	default:
		return nil
	}
	nodeName, isNode := nodeIdentity(a.UserInfo)
	if !isNode {
		return nil
	}
	if nodeName == "" {
		return forbidden(a, fmt.Errorf("could not determine node from user %q", a.UserInfo.GetName()))
	}

	switch a.Resource.GroupResource() {
	case podsGR:
		switch a.Subresource {
		case "":
			return p.admitPod(ctx, nodeName, a)
		case "status":
			return admitPodStatus(nodeName, a)
		case "eviction":
			return p.admitEviction(ctx, nodeName, a)
		default:
			return forbidden(a, fmt.Errorf("unexpected pod subresource %q, only 'status' and 'eviction' are allowed", a.Subresource))
		}
	case nodesGR:
		return admitNode(nodeName, a)
	case claimsGR:
		if a.Subresource != "status" {
			return forbidden(a, errors.New("may only update PVC status"))
		}
		return admitClaimStatus(nodeName, a)
	case serviceAccountGR:
		return p.admitServiceAccount(ctx, nodeName, a)
	case leasesGR:
		return admitLease(nodeName, a)
	case csiNodesGR:
		return admitCSINode(nodeName, a)
	case sliceGR:
		return admitResourceSlice(nodeName, a)
	case csrGR:
		if p.opts.AllowInsecureKubeletCSRs {
			return nil
		}
		return admitCSR(nodeName, a)
	case podCertGR:
		return p.admitPodCertificateRequest(ctx, nodeName, a)
	}
	return nil
}

// nodeIdentity is kube-apiserver's default node identifier: a user named
// system:node:<name> in group system:nodes is node <name>, which may be
// empty.
func nodeIdentity(u user.Info) (name string, isNode bool) {
	if isNil(u) {
		return "", false
	}
	name, ok := strings.CutPrefix(u.GetName(), "system:node:")
	if !ok {
		return "", false
	}
	for _, g := range u.GetGroups() {
		if g == user.NodesGroup {
			return name, true
		}
	}
	return "", false
}

// forbidden is kube-apiserver's admission.NewForbidden.
func forbidden(a *admission.Attributes, err error) error { return admission.NewForbidden(a, err) }

// as returns o as a *T when it is a non-nil one.
func as[T any](o runtime.Object) (*T, bool) {
	t, ok := any(o).(*T)
	return t, ok && t != nil
}

// typeOf names the type of o for "unexpected type" refusals.
func typeOf(o runtime.Object) string { return fmt.Sprintf("%T", o) }

// isNil reports whether v is nil or a nil pointer in an interface, which
// must not be dereferenced.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	r := reflect.ValueOf(v)
	return r.Kind() == reflect.Pointer && r.IsNil()
}

// objectNameOf is the name in an object's metadata, or "" without one.
func objectNameOf(o runtime.Object) (string, bool) {
	if isNil(o) {
		return "", false
	}
	m, err := meta.Accessor(o)
	if err != nil {
		return "", false
	}
	return m.GetName(), true
}

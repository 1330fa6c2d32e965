package celenv

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/google/cel-go/common/types/ref"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/cel/library"

	"github.com/portcullis/portcullis/internal/admission"
)

// AuthorizerVals returns the values of authorizer and
// authorizer.requestResource for the requesting user of a; both are nil
// when az is nil.
func AuthorizerVals(a *admission.Attributes, az authorizer.UnconditionalAuthorizer) (authz, requestResource ref.Val) {
	if az == nil {
		return nil, nil
	}
	var u user.Info = &user.DefaultInfo{}
	if a.UserInfo != nil {
		u = a.UserInfo
	}
	return library.NewAuthorizerVal(u, az), library.NewResourceAuthorizerVal(u, az, resourceOf{a})
}

// resourceOf presents admission attributes as the CEL authz library's
// Resource.
type resourceOf struct{ a *admission.Attributes }

func (r resourceOf) GetName() string                          { return r.a.Name }
func (r resourceOf) GetNamespace() string                     { return r.a.Namespace }
func (r resourceOf) GetResource() schema.GroupVersionResource { return r.a.Resource }
func (r resourceOf) GetSubresource() string                   { return r.a.Subresource }

// CachingAuthorizer remembers the decisions of one admission request, so
// that policies asking the same question get the same answer for the cost
// of one authorization. Not safe for concurrent use.
type CachingAuthorizer struct {
	az    authorizer.UnconditionalAuthorizer
	cache map[string]cachedDecision
}

type cachedDecision struct {
	decision authorizer.Decision
	reason   string
	err      error
}

// NewCachingAuthorizer wraps az for one request.
func NewCachingAuthorizer(az authorizer.UnconditionalAuthorizer) *CachingAuthorizer {
	return &CachingAuthorizer{az: az}
}

// Authorize implements authorizer.UnconditionalAuthorizer.
func (c *CachingAuthorizer) Authorize(ctx context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	key := attributesKey(a)
	if d, ok := c.cache[key]; ok {
		return d.decision, d.reason, d.err
	}
	d, reason, err := c.az.Authorize(ctx, a)
	if c.cache == nil {
		c.cache = map[string]cachedDecision{}
	}
	c.cache[key] = cachedDecision{d, reason, err}
	return d, reason, err
}

// attributesKey identifies authorization attributes: everything an
// authorizer may look at.
func attributesKey(a authorizer.Attributes) string {
	var b strings.Builder
	if u := a.GetUser(); u != nil {
		fmt.Fprintf(&b, "%q %q %q ", u.GetName(), u.GetUID(), u.GetGroups())
		extra := u.GetExtra()
		keys := make([]string, 0, len(extra))
		for k := range extra {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "%q=%q ", k, extra[k])
		}
	}
	fmt.Fprintf(&b, "|%q %t %q %q %q %q %q %q %q", a.GetVerb(), a.IsResourceRequest(), a.GetPath(),
		a.GetNamespace(), a.GetAPIGroup(), a.GetAPIVersion(), a.GetResource(), a.GetSubresource(), a.GetName())
	fs, fsErr := a.GetFieldSelector()
	ls, lsErr := a.GetLabelSelector()
	fmt.Fprintf(&b, "|%v %v|%v %v", fs, fsErr, ls, lsErr)
	return b.String()
}

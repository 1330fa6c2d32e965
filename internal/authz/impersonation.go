package authz

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/portcullis/portcullis/internal/audit"
	"github.com/portcullis/portcullis/internal/request"
)

// The impersonation headers of the Kubernetes API.
const (
	headerUser        = "Impersonate-User"
	headerUID         = "Impersonate-Uid"
	headerGroup       = "Impersonate-Group"
	headerExtraPrefix = "Impersonate-Extra-"
)

// Impersonation acts as the user named by the Impersonate-* headers once
// the requester may impersonate each part of it (verb impersonate on users
// or serviceaccounts, groups, uids and userextras), as kube-apiserver does.
func Impersonation(next http.Handler, az Authorizer, out ErrorWriter) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := request.StateFrom(r.Context())
		wanted, checks, err := impersonationRequest(r.Header)
		if err != nil {
			out.Error(w, r, err)
			return
		}
		if wanted == nil {
			next.ServeHTTP(w, r)
			return
		}
		for _, c := range checks {
			c.User = st.User
			d, reason, err := az.Authorize(r.Context(), c)
			if d == authorizer.DecisionAllow {
				continue
			}
			if err != nil {
				out.Error(w, r, apierrors.NewInternalError(err))
				return
			}
			out.Error(w, r, Forbidden(c, reason))
			return
		}
		audit.RecorderFrom(r.Context()).SetImpersonatedUser(wanted)
		st.User = wanted
		for k := range r.Header {
			if k == headerUser || k == headerUID || k == headerGroup || strings.HasPrefix(k, headerExtraPrefix) {
				r.Header.Del(k)
			}
		}
		next.ServeHTTP(w, r)
	})
}

// impersonationRequest parses the headers into the user to act as and the
// authorization checks that must pass; nil user means no impersonation.
func impersonationRequest(h http.Header) (user.Info, []authorizer.AttributesRecord, error) {
	name := h.Get(headerUser)
	groups := h.Values(headerGroup)
	uid := h.Get(headerUID)
	extra := map[string][]string{}
	for k, vs := range h {
		if !strings.HasPrefix(k, headerExtraPrefix) {
			continue
		}
		key, err := url.PathUnescape(strings.ToLower(strings.TrimPrefix(k, headerExtraPrefix)))
		if err != nil {
			return nil, nil, apierrors.NewBadRequest(fmt.Sprintf("malformed extra key for impersonation request: %v", err))
		}
		extra[key] = append(extra[key], vs...)
	}
	if name == "" {
		if len(groups) > 0 || uid != "" || len(extra) > 0 {
			return nil, nil, apierrors.NewBadRequest(fmt.Sprintf("requested %v without impersonating a user", describeImpersonation(groups, uid, extra)))
		}
		return nil, nil, nil
	}
	var checks []authorizer.AttributesRecord
	if ns, sa, err := splitServiceAccount(name); err == nil {
		checks = append(checks, authorizer.AttributesRecord{Verb: "impersonate", Resource: "serviceaccounts", Namespace: ns, Name: sa, ResourceRequest: true})
		if len(groups) == 0 {
			groups = []string{"system:serviceaccounts", "system:serviceaccounts:" + ns}
		}
	} else {
		checks = append(checks, authorizer.AttributesRecord{Verb: "impersonate", Resource: "users", Name: name, ResourceRequest: true})
	}
	for _, g := range h.Values(headerGroup) {
		checks = append(checks, authorizer.AttributesRecord{Verb: "impersonate", Resource: "groups", Name: g, ResourceRequest: true})
	}
	for k, vs := range extra {
		for _, v := range vs {
			checks = append(checks, authorizer.AttributesRecord{Verb: "impersonate", APIGroup: "authentication.k8s.io", Resource: "userextras", Subresource: k, Name: v, ResourceRequest: true})
		}
	}
	if uid != "" {
		checks = append(checks, authorizer.AttributesRecord{Verb: "impersonate", APIGroup: "authentication.k8s.io", Resource: "uids", Name: uid, ResourceRequest: true})
	}
	// Everyone impersonated is authenticated, except the anonymous user.
	marker := user.AllAuthenticated
	if name == user.Anonymous {
		marker = user.AllUnauthenticated
	}
	has := false
	for _, g := range groups {
		if g == marker {
			has = true
		}
	}
	if !has {
		groups = append(append([]string(nil), groups...), marker)
	}
	if len(extra) == 0 {
		extra = nil
	}
	return &user.DefaultInfo{Name: name, UID: uid, Groups: groups, Extra: extra}, checks, nil
}

func describeImpersonation(groups []string, uid string, extra map[string][]string) string {
	var parts []string
	for _, g := range groups {
		parts = append(parts, headerGroup+"="+g)
	}
	if uid != "" {
		parts = append(parts, headerUID+"="+uid)
	}
	for k, vs := range extra {
		for _, v := range vs {
			parts = append(parts, headerExtraPrefix+k+"="+v)
		}
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// splitServiceAccount splits system:serviceaccount:<ns>:<name>.
func splitServiceAccount(name string) (string, string, error) {
	const prefix = "system:serviceaccount:"
	if !strings.HasPrefix(name, prefix) {
		return "", "", fmt.Errorf("%q is not a service account user name", name)
	}
	parts := strings.Split(strings.TrimPrefix(name, prefix), ":")
	if len(parts) != 2 || parts[0] == "" || parts[1] == "" {
		return "", "", fmt.Errorf("%q is not a service account user name", name)
	}
	return parts[0], parts[1], nil
}

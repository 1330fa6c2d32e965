package webhook

import (
	"slices"
	"strconv"
	"strings"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/util/cache"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

const (
	// cacheSize bounds the decisions kept, least recently used first out
	// (kube-apiserver's size).
	cacheSize = 8192
	// maxCacheableAttrSize: requests whose attributes add up to more bytes
	// than this are not cached, so that huge names cannot fill the cache
	// (kube-apiserver's limit).
	maxCacheableAttrSize = 10000
)

// decisionCache remembers the webhook's answers: allowed ones for
// authorizedTTL, the rest for unauthorizedTTL. A zero TTL caches nothing
// of that kind.
type decisionCache struct {
	lru             *cache.LRUExpireCache
	authorizedTTL   time.Duration
	unauthorizedTTL time.Duration
}

func newDecisionCache(clock cache.Clock, authorizedTTL, unauthorizedTTL time.Duration) *decisionCache {
	return &decisionCache{
		lru:             cache.NewLRUExpireCacheWithClock(cacheSize, clock),
		authorizedTTL:   authorizedTTL,
		unauthorizedTTL: unauthorizedTTL,
	}
}

func (c *decisionCache) get(key string) (authorizationv1.SubjectAccessReviewStatus, bool) {
	v, ok := c.lru.Get(key)
	if !ok {
		return authorizationv1.SubjectAccessReviewStatus{}, false
	}
	st, ok := v.(authorizationv1.SubjectAccessReviewStatus)
	return st, ok
}

func (c *decisionCache) add(key string, st authorizationv1.SubjectAccessReviewStatus) {
	ttl := c.unauthorizedTTL
	if st.Allowed {
		ttl = c.authorizedTTL
	}
	if ttl > 0 {
		c.lru.Add(key, st, ttl)
	}
}

// cacheable reports whether the request's attributes are small enough to
// be cached.
func cacheable(a authorizer.Attributes) bool {
	n := len(a.GetNamespace()) + len(a.GetVerb()) + len(a.GetAPIGroup()) + len(a.GetAPIVersion()) +
		len(a.GetResource()) + len(a.GetSubresource()) + len(a.GetName()) + len(a.GetPath())
	return n < maxCacheableAttrSize
}

// cacheKey encodes every field of the spec, each length-prefixed so that
// two different specs never share a key. It stands in for kube-apiserver's
// JSON encoding of the spec, at a fraction of the cost.
func cacheKey(s *authorizationv1.SubjectAccessReviewSpec) string {
	var b strings.Builder
	b.Grow(128)
	str := func(v string) {
		b.WriteString(strconv.Itoa(len(v)))
		b.WriteByte(':')
		b.WriteString(v)
	}
	list := func(vs []string) {
		b.WriteString(strconv.Itoa(len(vs)))
		b.WriteByte('[')
		for _, v := range vs {
			str(v)
		}
	}
	str(s.User)
	str(string(s.UID))
	list(s.Groups)
	keys := make([]string, 0, len(s.Extra))
	for k := range s.Extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b.WriteString(strconv.Itoa(len(keys)))
	b.WriteByte('{')
	for _, k := range keys {
		str(k)
		list(s.Extra[k])
	}
	if r := s.ResourceAttributes; r != nil {
		b.WriteByte('R')
		str(r.Namespace)
		str(r.Verb)
		str(r.Group)
		str(r.Version)
		str(r.Resource)
		str(r.Subresource)
		str(r.Name)
		if f := r.FieldSelector; f != nil {
			b.WriteByte('F')
			str(f.RawSelector)
			b.WriteString(strconv.Itoa(len(f.Requirements)))
			for _, q := range f.Requirements {
				str(q.Key)
				str(string(q.Operator))
				list(q.Values)
			}
		}
		if l := r.LabelSelector; l != nil {
			b.WriteByte('L')
			str(l.RawSelector)
			b.WriteString(strconv.Itoa(len(l.Requirements)))
			for _, q := range l.Requirements {
				str(q.Key)
				str(string(q.Operator))
				list(q.Values)
			}
		}
	}
	if n := s.NonResourceAttributes; n != nil {
		b.WriteByte('N')
		str(n.Path)
		str(n.Verb)
	}
	return b.String()
}

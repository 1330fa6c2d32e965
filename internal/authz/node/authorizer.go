package node

import (
	"context"
	"fmt"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// Options configure an Authorizer. The zero value is kube-apiserver's
// default: no metrics, and the token audience restriction on.
type Options struct {
	// Registerer, if set, receives the histogram
	// node_authorizer_graph_actions_duration_seconds{operation}.
	Registerer prometheus.Registerer
	// AllowAnyTokenAudience turns the service account token audience
	// restriction off, as the feature gate
	// ServiceAccountNodeAudienceRestriction=false does: every audience is
	// then allowed by AudienceAllowed and PodAudienceAllowed.
	AllowAnyTokenAudience bool
}

// Authorizer is the Node authorizer. It decides the requests of node
// identities (see NodeName) and has no opinion on anyone else's. Feed it
// the objects of the store's watch with Upsert and Delete; it is safe for
// concurrent use.
type Authorizer struct {
	mu  sync.RWMutex
	g   *graph
	aud audiences

	metrics     graphMetrics
	anyAudience bool

	// Scratch space for graph changes, used under the write lock.
	refs []ref
	ids  []uint32
}

var _ authorizer.UnconditionalAuthorizer = (*Authorizer)(nil)

// New returns an Authorizer with an empty graph.
func New(opts Options) (*Authorizer, error) {
	m, err := newGraphMetrics(opts.Registerer)
	if err != nil {
		return nil, err
	}
	return &Authorizer{
		g:           newGraph(),
		aud:         newAudiences(),
		metrics:     m,
		anyAudience: opts.AllowAnyTokenAudience,
	}, nil
}

// Authorize implements authorizer.Authorizer. Every refusal is
// NoOpinion, never Deny, so that a later authorizer (RBAC) may still
// allow, exactly as kube-apiserver's Node authorizer does; the reasons are
// kube-apiserver's words.
func (a *Authorizer) Authorize(_ context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	nodeName, isNode := NodeName(attrs.GetUser())
	if !isNode {
		return authorizer.DecisionNoOpinion, "", nil
	}
	if nodeName == "" {
		return authorizer.DecisionNoOpinion, fmt.Sprintf("unknown node for user %q", attrs.GetUser().GetName()), nil
	}
	if attrs.IsResourceRequest() {
		if d, reason, ok := a.subdivided(nodeName, attrs); ok {
			return d, reason, nil
		}
	}
	if staticAllows(attrs) {
		return authorizer.DecisionAllow, "", nil
	}
	return authorizer.DecisionNoOpinion, "", nil
}

// related reports whether the graph connects the object to the node.
func (a *Authorizer) related(nodeName string, k kind, namespace, name string) bool {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return a.g.related(nodeName, key{kind: k, namespace: namespace, name: name})
}

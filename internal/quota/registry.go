package quota

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Registry holds kube-apiserver's evaluators for admission. Any other
// resource is counted as count/<resource>.<group>.
type Registry struct {
	evaluators map[schema.GroupResource]*Evaluator
}

// legacyCountNames are the names, older than count/..., that count
// objects of these core resources too.
var legacyCountNames = map[string]corev1.ResourceName{
	"configmaps":             corev1.ResourceConfigMaps,
	"resourcequotas":         corev1.ResourceQuotas,
	"replicationcontrollers": corev1.ResourceReplicationControllers,
	"secrets":                corev1.ResourceSecrets,
}

// ignored are the resources quota never charges: no object is stored, or
// the write is too frequent to serialise on quota (events).
var ignored = map[schema.GroupResource]bool{
	{Resource: "bindings"}:                                                 true,
	{Resource: "componentstatuses"}:                                        true,
	{Group: "authentication.k8s.io", Resource: "tokenreviews"}:             true,
	{Group: "authentication.k8s.io", Resource: "selfsubjectreviews"}:       true,
	{Group: "authorization.k8s.io", Resource: "subjectaccessreviews"}:      true,
	{Group: "authorization.k8s.io", Resource: "selfsubjectaccessreviews"}:  true,
	{Group: "authorization.k8s.io", Resource: "localsubjectaccessreviews"}: true,
	{Group: "authorization.k8s.io", Resource: "selfsubjectrulesreviews"}:   true,
	{Resource: "events"}:                         true,
	{Group: "events.k8s.io", Resource: "events"}: true,
}

// NewRegistry returns the evaluators of pods, services, claims and the
// legacy object counts.
func NewRegistry(pods PodOptions) *Registry {
	r := &Registry{evaluators: map[schema.GroupResource]*Evaluator{}}
	for _, e := range []*Evaluator{NewPods(pods), NewServices(), NewPersistentVolumeClaims()} {
		r.evaluators[e.GroupResource] = e
	}
	for res, alias := range legacyCountNames {
		gr := schema.GroupResource{Resource: res}
		r.evaluators[gr] = NewObjectCount(gr, alias)
	}
	return r
}

// Ignored says whether quota never looks at writes of gr.
func (r *Registry) Ignored(gr schema.GroupResource) bool { return ignored[gr] }

// Get is the evaluator of gr: a registered one, else an object count.
func (r *Registry) Get(gr schema.GroupResource) *Evaluator {
	if e, ok := r.evaluators[gr]; ok {
		return e
	}
	return NewObjectCount(gr, "")
}

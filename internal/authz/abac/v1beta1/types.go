package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// SchemeGroupVersion is the group and version of a versioned line.
var SchemeGroupVersion = schema.GroupVersion{Group: "abac.authorization.kubernetes.io", Version: "v1beta1"}

// Policy is one rule.
type Policy struct {
	metav1.TypeMeta `json:",inline"`

	Spec PolicySpec `json:"spec"`
}

// PolicySpec says whom the rule applies to and what it allows. "*" in
// user, group, apiGroup, resource or namespace matches everything;
// nonResourcePath "*" matches every path and "/foo/*" every path under
// /foo/.
type PolicySpec struct {
	User            string `json:"user,omitempty"`
	Group           string `json:"group,omitempty"`
	Readonly        bool   `json:"readonly,omitempty"`
	APIGroup        string `json:"apiGroup,omitempty"`
	Resource        string `json:"resource,omitempty"`
	Namespace       string `json:"namespace,omitempty"`
	NonResourcePath string `json:"nonResourcePath,omitempty"`
}

// DeepCopyObject implements runtime.Object; every field is a value.
func (p *Policy) DeepCopyObject() runtime.Object {
	c := *p
	return &c
}

package v0

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// SchemeGroupVersion is the group and version of the legacy line when it
// names one.
var SchemeGroupVersion = schema.GroupVersion{Group: "abac.authorization.kubernetes.io", Version: "v0"}

// Policy is one legacy rule. Empty user and group mean every authenticated
// user; empty namespace and resource mean all of them (and then also every
// non-resource path).
type Policy struct {
	metav1.TypeMeta `json:",inline"`

	User      string `json:"user,omitempty"`
	Group     string `json:"group,omitempty"`
	Readonly  bool   `json:"readonly,omitempty"`
	Resource  string `json:"resource,omitempty"`
	Namespace string `json:"namespace,omitempty"`
}

// DeepCopyObject implements runtime.Object; every field is a value.
func (p *Policy) DeepCopyObject() runtime.Object {
	c := *p
	return &c
}

package defaults

import (
	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Webhook defaults. sideEffects and admissionReviewVersions have none in v1:
// the author must choose.
func validatingWebhookConfiguration(c *admissionv1.ValidatingWebhookConfiguration) {
	for i := range c.Webhooks {
		h := &c.Webhooks[i]
		webhookCommon(&h.FailurePolicy, &h.MatchPolicy, &h.NamespaceSelector, &h.ObjectSelector, &h.TimeoutSeconds)
		serviceReference(h.ClientConfig.Service)
		for j := range h.Rules {
			rule(&h.Rules[j].Rule)
		}
	}
}

func mutatingWebhookConfiguration(c *admissionv1.MutatingWebhookConfiguration) {
	for i := range c.Webhooks {
		h := &c.Webhooks[i]
		webhookCommon(&h.FailurePolicy, &h.MatchPolicy, &h.NamespaceSelector, &h.ObjectSelector, &h.TimeoutSeconds)
		if h.ReinvocationPolicy == nil {
			h.ReinvocationPolicy = ptr(admissionv1.NeverReinvocationPolicy)
		}
		serviceReference(h.ClientConfig.Service)
		for j := range h.Rules {
			rule(&h.Rules[j].Rule)
		}
	}
}

func webhookCommon(fp **admissionv1.FailurePolicyType, mp **admissionv1.MatchPolicyType, ns, obj **metav1.LabelSelector, timeout **int32) {
	if *fp == nil {
		*fp = ptr(admissionv1.Fail)
	}
	if *mp == nil {
		*mp = ptr(admissionv1.Equivalent)
	}
	if *ns == nil {
		*ns = &metav1.LabelSelector{}
	}
	if *obj == nil {
		*obj = &metav1.LabelSelector{}
	}
	if *timeout == nil {
		*timeout = ptr(int32(10))
	}
}

func serviceReference(s *admissionv1.ServiceReference) {
	if s != nil && s.Port == nil {
		s.Port = ptr(int32(443))
	}
}

func rule(r *admissionv1.Rule) {
	if r.Scope == nil {
		r.Scope = ptr(admissionv1.AllScopes)
	}
}

func validatingAdmissionPolicy(p *admissionv1.ValidatingAdmissionPolicy) {
	if p.Spec.FailurePolicy == nil {
		p.Spec.FailurePolicy = ptr(admissionv1.Fail)
	}
	matchResources(p.Spec.MatchConstraints)
}

// mutatingAdmissionPolicy defaults like a validating policy; its
// reinvocationPolicy is required and has no default.
func mutatingAdmissionPolicy(p *admissionv1.MutatingAdmissionPolicy) {
	if p.Spec.FailurePolicy == nil {
		p.Spec.FailurePolicy = ptr(admissionv1.Fail)
	}
	matchResources(p.Spec.MatchConstraints)
}

func matchResources(m *admissionv1.MatchResources) {
	if m == nil {
		return
	}
	if m.MatchPolicy == nil {
		m.MatchPolicy = ptr(admissionv1.Equivalent)
	}
	if m.NamespaceSelector == nil {
		m.NamespaceSelector = &metav1.LabelSelector{}
	}
	if m.ObjectSelector == nil {
		m.ObjectSelector = &metav1.LabelSelector{}
	}
	for i := range m.ResourceRules {
		rule(&m.ResourceRules[i].Rule)
	}
	for i := range m.ExcludeResourceRules {
		rule(&m.ExcludeResourceRules[i].Rule)
	}
}

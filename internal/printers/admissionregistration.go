package printers

import (
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// admissionregistrationPrinters covers admissionregistration.k8s.io/v1:
// webhook configurations, and validating and mutating admission policies
// with their bindings.
func admissionregistrationPrinters() []registration {
	return []registration{
		cellsPrinter(webhookColumns, func(c *admissionregistrationv1.ValidatingWebhookConfiguration, now time.Time) []any {
			return []any{c.Name, int64(len(c.Webhooks)), since(c.CreationTimestamp, now)}
		}),
		cellsPrinter(webhookColumns, func(c *admissionregistrationv1.MutatingWebhookConfiguration, now time.Time) []any {
			return []any{c.Name, int64(len(c.Webhooks)), since(c.CreationTimestamp, now)}
		}),
		cellsPrinter(policyColumns("Validations", "The number of validation rules of the policy."), func(p *admissionregistrationv1.ValidatingAdmissionPolicy, now time.Time) []any {
			return []any{p.Name, int64(len(p.Spec.Validations)), paramKind(p.Spec.ParamKind), since(p.CreationTimestamp, now)}
		}),
		cellsPrinter(policyColumns("Mutations", "The number of mutations of the policy."), func(p *admissionregistrationv1.MutatingAdmissionPolicy, now time.Time) []any {
			return []any{p.Name, int64(len(p.Spec.Mutations)), paramKind(p.Spec.ParamKind), since(p.CreationTimestamp, now)}
		}),
		cellsPrinter(policyBindingColumns, func(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding, now time.Time) []any {
			return []any{b.Name, b.Spec.PolicyName, paramRef(b.Spec.ParamRef), since(b.CreationTimestamp, now)}
		}),
		cellsPrinter(policyBindingColumns, func(b *admissionregistrationv1.MutatingAdmissionPolicyBinding, now time.Time) []any {
			return []any{b.Name, b.Spec.PolicyName, paramRef(b.Spec.ParamRef), since(b.CreationTimestamp, now)}
		}),
	}
}

var webhookColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	column("Webhooks", "integer", "The number of webhooks in the configuration."),
	ageColumn(),
}

func policyColumns(rules, description string) []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn(),
		column(rules, "integer", description),
		column("ParamKind", "string", "The kind of the resources that parameterize the policy."),
		ageColumn(),
	}
}

var policyBindingColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	column("PolicyName", "string", "The policy the binding binds."),
	column("ParamRef", "string", "The parameter resource the binding passes to the policy."),
	ageColumn(),
}

// paramKind renders "apiVersion/Kind", or "<unset>" for policies without
// parameters.
func paramKind(k *admissionregistrationv1.ParamKind) string {
	if k == nil {
		return unset
	}
	return k.APIVersion + "/" + k.Kind
}

// paramRef renders "namespace/name", "*/name" when the namespace is left to
// the request (or the param is cluster-scoped, which the binding cannot
// tell), or the label selector.
func paramRef(r *admissionregistrationv1.ParamRef) string {
	switch {
	case r == nil:
		return unset
	case r.Name != "" && r.Namespace != "":
		return r.Namespace + "/" + r.Name
	case r.Name != "":
		return "*/" + r.Name
	case r.Selector != nil:
		// The generated debug form, which is what kube-apiserver shows.
		return r.Selector.String()
	}
	return unset
}

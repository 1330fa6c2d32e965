package validation

import (
	"fmt"
	"net/url"
	"reflect"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// webhookOptions carries the leniency an update grants to what was already
// stored, so that an old object that predates a rule can still be edited.
type webhookOptions struct {
	requireNoSideEffects           bool
	requireRecognizedReviewVersion bool
	requireUniqueNames             bool
	allowInvalidLabelValue         bool
	skipMatchConditions            bool
	// storedConditions are the match condition expressions of the object
	// an update replaces, compiled as stored expressions.
	storedConditions map[string]bool
}

var strictWebhookOptions = webhookOptions{
	requireNoSideEffects:           true,
	requireRecognizedReviewVersion: true,
	requireUniqueNames:             true,
}

// webhookCommon is the part of ValidatingWebhook and MutatingWebhook that
// validates alike.
type webhookCommon struct {
	name                    string
	clientConfig            *admissionv1.WebhookClientConfig
	rules                   []admissionv1.RuleWithOperations
	failurePolicy           *admissionv1.FailurePolicyType
	matchPolicy             *admissionv1.MatchPolicyType
	namespaceSelector       *metav1.LabelSelector
	objectSelector          *metav1.LabelSelector
	sideEffects             *admissionv1.SideEffectClass
	timeoutSeconds          *int32
	admissionReviewVersions []string
	matchConditions         []admissionv1.MatchCondition
	reinvocationPolicy      *admissionv1.ReinvocationPolicyType
	mutating                bool
}

func validatingCommon(h *admissionv1.ValidatingWebhook) webhookCommon {
	return webhookCommon{
		name: h.Name, clientConfig: &h.ClientConfig, rules: h.Rules,
		failurePolicy: h.FailurePolicy, matchPolicy: h.MatchPolicy,
		namespaceSelector: h.NamespaceSelector, objectSelector: h.ObjectSelector,
		sideEffects: h.SideEffects, timeoutSeconds: h.TimeoutSeconds,
		admissionReviewVersions: h.AdmissionReviewVersions, matchConditions: h.MatchConditions,
	}
}

func mutatingCommon(h *admissionv1.MutatingWebhook) webhookCommon {
	return webhookCommon{
		name: h.Name, clientConfig: &h.ClientConfig, rules: h.Rules,
		failurePolicy: h.FailurePolicy, matchPolicy: h.MatchPolicy,
		namespaceSelector: h.NamespaceSelector, objectSelector: h.ObjectSelector,
		sideEffects: h.SideEffects, timeoutSeconds: h.TimeoutSeconds,
		admissionReviewVersions: h.AdmissionReviewVersions, matchConditions: h.MatchConditions,
		reinvocationPolicy: h.ReinvocationPolicy, mutating: true,
	}
}

// commons views the webhooks of either configuration kind through their
// common fields.
func commons[W any](ws []W, common func(*W) webhookCommon) []webhookCommon {
	out := make([]webhookCommon, len(ws))
	for i := range ws {
		out[i] = common(&ws[i])
	}
	return out
}

func validateValidatingWebhookConfiguration(c *admissionv1.ValidatingWebhookConfiguration, opts webhookOptions) field.ErrorList {
	return validateWebhookConfiguration(&c.ObjectMeta, commons(c.Webhooks, validatingCommon), opts)
}

func validateMutatingWebhookConfiguration(c *admissionv1.MutatingWebhookConfiguration, opts webhookOptions) field.ErrorList {
	return validateWebhookConfiguration(&c.ObjectMeta, commons(c.Webhooks, mutatingCommon), opts)
}

func validateWebhookConfiguration(m *metav1.ObjectMeta, hooks []webhookCommon, opts webhookOptions) field.ErrorList {
	errs := validateMeta(m, false, nameIsDNSSubdomain)
	seen := map[string]bool{}
	for i := range hooks {
		p := field.NewPath("webhooks").Index(i)
		errs = append(errs, validateWebhook(&hooks[i], opts, p)...)
		errs = append(errs, validateReviewVersions(hooks[i].admissionReviewVersions, opts.requireRecognizedReviewVersion, p.Child("admissionReviewVersions"))...)
		if opts.requireUniqueNames && hooks[i].name != "" {
			if seen[hooks[i].name] {
				errs = append(errs, field.Duplicate(p.Child("name"), hooks[i].name))
			}
			seen[hooks[i].name] = true
		}
	}
	return errs
}

func validateWebhook(h *webhookCommon, opts webhookOptions, p *field.Path) field.ErrorList {
	// The name is what audit logs and metrics show: it must be fully
	// qualified, e.g. "policy.example.com".
	errs := utilvalidation.IsFullyQualifiedName(p.Child("name"), h.name)
	for i := range h.rules {
		errs = append(errs, validateRuleWithOperations(&h.rules[i], p.Child("rules").Index(i))...)
	}
	if h.failurePolicy != nil && !contains(supportedFailurePolicies, string(*h.failurePolicy)) {
		errs = append(errs, field.NotSupported(p.Child("failurePolicy"), *h.failurePolicy, supportedFailurePolicies))
	}
	if h.matchPolicy != nil && !contains(supportedMatchPolicies, string(*h.matchPolicy)) {
		errs = append(errs, field.NotSupported(p.Child("matchPolicy"), *h.matchPolicy, supportedMatchPolicies))
	}
	allowed := supportedSideEffectClasses
	if opts.requireNoSideEffects {
		allowed = noSideEffectClasses
	}
	if h.sideEffects == nil {
		errs = append(errs, field.Required(p.Child("sideEffects"), fmt.Sprintf("must specify one of %v", strings.Join(allowed, ", "))))
	} else if !contains(allowed, string(*h.sideEffects)) {
		errs = append(errs, field.NotSupported(p.Child("sideEffects"), *h.sideEffects, allowed))
	}
	if h.timeoutSeconds != nil && (*h.timeoutSeconds > 30 || *h.timeoutSeconds < 1) {
		errs = append(errs, field.Invalid(p.Child("timeoutSeconds"), *h.timeoutSeconds, "the timeout value must be between 1 and 30 seconds"))
	}
	if h.namespaceSelector != nil {
		errs = append(errs, validateLabelSelector(h.namespaceSelector, opts.allowInvalidLabelValue, p.Child("namespaceSelector"))...)
	}
	if h.objectSelector != nil {
		errs = append(errs, validateLabelSelector(h.objectSelector, opts.allowInvalidLabelValue, p.Child("objectSelector"))...)
	}
	if h.mutating && h.reinvocationPolicy != nil && !contains(supportedReinvocation, string(*h.reinvocationPolicy)) {
		errs = append(errs, field.NotSupported(p.Child("reinvocationPolicy"), *h.reinvocationPolicy, supportedReinvocation))
	}
	errs = append(errs, validateClientConfig(h.clientConfig, p.Child("clientConfig"))...)
	if !opts.skipMatchConditions {
		errs = append(errs, validateMatchConditions(h.matchConditions, false, opts.storedConditions, p.Child("matchConditions"))...)
	}
	return errs
}

func validateReviewVersions(versions []string, requireRecognized bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(versions) == 0 {
		return field.ErrorList{field.Required(p, fmt.Sprintf("must specify one of %v", strings.Join(acceptedReviewVersions, ", ")))}
	}
	seen := map[string]bool{}
	recognized := false
	for i, v := range versions {
		if seen[v] {
			errs = append(errs, field.Invalid(p.Index(i), v, "duplicate version"))
			continue
		}
		seen[v] = true
		for _, msg := range isDNS1035Label(v) {
			errs = append(errs, field.Invalid(p.Index(i), v, msg))
		}
		if contains(acceptedReviewVersions, v) {
			recognized = true
		}
	}
	if requireRecognized && !recognized {
		errs = append(errs, field.Invalid(p, versions, fmt.Sprintf("must include at least one of %v", strings.Join(acceptedReviewVersions, ", "))))
	}
	return errs
}

// validateClientConfig requires exactly one of url and service.
func validateClientConfig(cc *admissionv1.WebhookClientConfig, p *field.Path) field.ErrorList {
	switch {
	case (cc.URL == nil) == (cc.Service == nil):
		return field.ErrorList{field.Required(p, "exactly one of url or service is required")}
	case cc.URL != nil:
		return validateWebhookURL(*cc.URL, p.Child("url"))
	default:
		port := int32(443) // the v1 default, should Apply not have run
		if cc.Service.Port != nil {
			port = *cc.Service.Port
		}
		return validateWebhookService(cc.Service.Namespace, cc.Service.Name, cc.Service.Path, port, p.Child("service"))
	}
}

// validateWebhookURL accepts only https URLs with a host and without user
// information, fragment or query.
func validateWebhookURL(raw string, p *field.Path) field.ErrorList {
	const form = "; desired format: https://host[/path]"
	u, err := url.Parse(raw)
	if err != nil {
		return field.ErrorList{field.Required(p, "url must be a valid URL: "+err.Error()+form)}
	}
	var errs field.ErrorList
	if u.Scheme != "https" {
		errs = append(errs, field.Invalid(p, u.Scheme, "'https' is the only allowed URL scheme"+form))
	}
	if u.Host == "" {
		errs = append(errs, field.Invalid(p, u.Host, "host must be specified"+form))
	}
	if u.User != nil {
		errs = append(errs, field.Invalid(p, u.User.String(), "user information is not permitted in the URL"))
	}
	if u.Fragment != "" {
		errs = append(errs, field.Invalid(p, u.Fragment, "fragments are not permitted in the URL"))
	}
	if u.RawQuery != "" {
		errs = append(errs, field.Invalid(p, u.RawQuery, "query parameters are not permitted in the URL"))
	}
	return errs
}

// validateWebhookService checks a service reference; each path segment must
// be a DNS subdomain.
func validateWebhookService(namespace, name string, path *string, port int32, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if name == "" {
		errs = append(errs, field.Required(p.Child("name"), ""))
	}
	if namespace == "" {
		errs = append(errs, field.Required(p.Child("namespace"), ""))
	}
	if msgs := utilvalidation.IsValidPortNum(int(port)); msgs != nil {
		errs = append(errs, field.Invalid(p.Child("port"), port, "port is not valid: "+strings.Join(msgs, ", ")))
	}
	if path == nil || *path == "" || *path == "/" {
		return errs
	}
	pp := p.Child("path")
	urlPath := *path
	if urlPath == "//" {
		return append(errs, field.Invalid(pp, urlPath, "segment[0] may not be empty"))
	}
	if !strings.HasPrefix(urlPath, "/") {
		errs = append(errs, field.Invalid(pp, urlPath, "must start with a '/'"))
	}
	// The reference drops the first byte whether or not it is a '/'.
	rest := strings.TrimSuffix(urlPath[1:], "/")
	for i, step := range strings.Split(rest, "/") {
		if step == "" {
			errs = append(errs, field.Invalid(pp, urlPath, fmt.Sprintf("segment[%d] may not be empty", i)))
			continue
		}
		for _, msg := range isDNS1123Subdomain(step) {
			errs = append(errs, field.Invalid(pp, urlPath, fmt.Sprintf("segment[%d]: %v", i, msg)))
		}
	}
	return errs
}

// webhookUpdateOptions keeps each strict rule only if the stored object
// already satisfied it, and skips match conditions left unchanged.
func webhookUpdateOptions(hooks, old []webhookCommon) webhookOptions {
	opts := webhookOptions{
		requireNoSideEffects:           true,
		requireRecognizedReviewVersion: true,
		requireUniqueNames:             true,
		skipMatchConditions:            len(hooks) == len(old),
	}
	names := map[string]bool{}
	for i, h := range old {
		if h.sideEffects == nil || !contains(noSideEffectClasses, string(*h.sideEffects)) {
			opts.requireNoSideEffects = false
		}
		if len(h.admissionReviewVersions) > 0 {
			ok := false
			for _, v := range h.admissionReviewVersions {
				if contains(acceptedReviewVersions, v) {
					ok = true
				}
			}
			if !ok {
				opts.requireRecognizedReviewVersion = false
			}
		}
		if names[h.name] {
			opts.requireUniqueNames = false
		}
		names[h.name] = true
		if selectorHasInvalidLabelValue(h.namespaceSelector) || selectorHasInvalidLabelValue(h.objectSelector) {
			opts.allowInvalidLabelValue = true
		}
		for _, c := range h.matchConditions {
			if opts.storedConditions == nil {
				opts.storedConditions = map[string]bool{}
			}
			opts.storedConditions[strings.TrimSpace(c.Expression)] = true
		}
		if opts.skipMatchConditions && !reflect.DeepEqual(hooks[i].matchConditions, h.matchConditions) {
			opts.skipMatchConditions = false
		}
	}
	return opts
}

func validateValidatingWebhookConfigurationUpdate(c, old *admissionv1.ValidatingWebhookConfiguration) field.ErrorList {
	return validateWebhookConfigurationUpdate(&c.ObjectMeta, &old.ObjectMeta, commons(c.Webhooks, validatingCommon), commons(old.Webhooks, validatingCommon))
}

func validateMutatingWebhookConfigurationUpdate(c, old *admissionv1.MutatingWebhookConfiguration) field.ErrorList {
	return validateWebhookConfigurationUpdate(&c.ObjectMeta, &old.ObjectMeta, commons(c.Webhooks, mutatingCommon), commons(old.Webhooks, mutatingCommon))
}

func validateWebhookConfigurationUpdate(m, old *metav1.ObjectMeta, hooks, oldHooks []webhookCommon) field.ErrorList {
	errs := validateWebhookConfiguration(m, hooks, webhookUpdateOptions(hooks, oldHooks))
	return append(errs, validateMetaUpdate(m, old)...)
}

package webhook

import (
	"strconv"
	"time"

	"github.com/google/cel-go/cel"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/portcullis/portcullis/internal/admission/policy/celenv"
	"github.com/portcullis/portcullis/internal/admission/policy/matching"
	"github.com/portcullis/portcullis/internal/webhookclient"
)

// Defaults of kube-apiserver's API defaulting, applied again here for
// configurations that did not go through it.
const (
	defaultTimeout = 10 * time.Second
	maxTimeout     = 30 * time.Second
)

// hook is one compiled webhook of a configuration.
type hook struct {
	name, config string
	// id tells invocations apart across reinvocation rounds.
	id string
	// pos is the webhook's position among all webhooks of the plugin,
	// the index of kube-apiserver's mutating audit annotations.
	pos int

	match      *matching.Criteria
	conditions []condition

	failurePolicy admissionregistrationv1.FailurePolicyType
	sideEffects   *admissionregistrationv1.SideEffectClass
	timeout       time.Duration
	versions      []string
	client        admissionregistrationv1.WebhookClientConfig
	// endpoint is client made once for webhookclient: it picks the HTTP
	// client of the CA bundle and server name.
	endpoint *webhookclient.Endpoint
	ifNeeded bool
	// rule names the webhook in the decision trace, made once here
	// rather than for every call.
	rule string
}

type condition struct {
	name string
	expr *celenv.Expression
}

// common are the fields the two webhook types share.
type common struct {
	name, config         string
	clientConfig         admissionregistrationv1.WebhookClientConfig
	rules                []admissionregistrationv1.RuleWithOperations
	matchPolicy          *admissionregistrationv1.MatchPolicyType
	failurePolicy        *admissionregistrationv1.FailurePolicyType
	namespaceSelector    *metav1.LabelSelector
	objectSelector       *metav1.LabelSelector
	sideEffects          *admissionregistrationv1.SideEffectClass
	timeoutSeconds       *int32
	reviewVersions       []string
	matchConditions      []admissionregistrationv1.MatchCondition
	reinvocationIfNeeded bool
}

func compileHook(c common, id string) *hook {
	h := &hook{
		name: c.name, config: c.config, id: id,
		failurePolicy: admissionregistrationv1.Fail,
		sideEffects:   c.sideEffects,
		timeout:       defaultTimeout,
		versions:      c.reviewVersions,
		client:        c.clientConfig,
		endpoint:      endpointOf(c.clientConfig),
		ifNeeded:      c.reinvocationIfNeeded,
		rule:          "webhook " + c.name + " (configuration " + c.config + ")",
	}
	if c.failurePolicy != nil {
		h.failurePolicy = *c.failurePolicy
	}
	if c.timeoutSeconds != nil {
		h.timeout = time.Duration(*c.timeoutSeconds) * time.Second
		// API validation keeps it in 1..30; clamp what bypassed it.
		h.timeout = min(max(h.timeout, time.Second), maxTimeout)
	}
	nsSel, objSel := c.namespaceSelector, c.objectSelector
	if nsSel == nil {
		nsSel = &metav1.LabelSelector{}
	}
	if objSel == nil {
		objSel = &metav1.LabelSelector{}
	}
	mr := &admissionregistrationv1.MatchResources{NamespaceSelector: nsSel, ObjectSelector: objSel, MatchPolicy: c.matchPolicy}
	for _, r := range c.rules {
		mr.ResourceRules = append(mr.ResourceRules, admissionregistrationv1.NamedRuleWithOperations{RuleWithOperations: r})
	}
	if len(mr.ResourceRules) == 0 {
		// A webhook without rules matches nothing; an impossible rule keeps
		// the criteria from treating "no rules" as "every request".
		mr.ResourceRules = []admissionregistrationv1.NamedRuleWithOperations{{}}
	}
	h.match = matching.CompilePolicy(mr)
	if len(c.matchConditions) > 0 {
		comp := celenv.NewCompiler(false, nil)
		for _, m := range c.matchConditions {
			h.conditions = append(h.conditions, condition{name: m.Name,
				expr: comp.Compile(m.Expression, celenv.Decls{Authorizer: true}, cel.BoolType)})
		}
	}
	return h
}

func fromValidating(cfg *admissionregistrationv1.ValidatingWebhookConfiguration) []*hook {
	out := make([]*hook, 0, len(cfg.Webhooks))
	for i := range cfg.Webhooks {
		w := &cfg.Webhooks[i]
		out = append(out, compileHook(common{
			name: w.Name, config: cfg.Name, clientConfig: w.ClientConfig, rules: w.Rules, matchPolicy: w.MatchPolicy,
			failurePolicy: w.FailurePolicy, namespaceSelector: w.NamespaceSelector, objectSelector: w.ObjectSelector,
			sideEffects: w.SideEffects, timeoutSeconds: w.TimeoutSeconds, reviewVersions: w.AdmissionReviewVersions,
			matchConditions: w.MatchConditions,
		}, hookID(cfg.Name, i)))
	}
	return out
}

func fromMutating(cfg *admissionregistrationv1.MutatingWebhookConfiguration) []*hook {
	out := make([]*hook, 0, len(cfg.Webhooks))
	for i := range cfg.Webhooks {
		w := &cfg.Webhooks[i]
		out = append(out, compileHook(common{
			name: w.Name, config: cfg.Name, clientConfig: w.ClientConfig, rules: w.Rules, matchPolicy: w.MatchPolicy,
			failurePolicy: w.FailurePolicy, namespaceSelector: w.NamespaceSelector, objectSelector: w.ObjectSelector,
			sideEffects: w.SideEffects, timeoutSeconds: w.TimeoutSeconds, reviewVersions: w.AdmissionReviewVersions,
			matchConditions:      w.MatchConditions,
			reinvocationIfNeeded: w.ReinvocationPolicy != nil && *w.ReinvocationPolicy == admissionregistrationv1.IfNeededReinvocationPolicy,
		}, hookID(cfg.Name, i)))
	}
	return out
}

// hookID follows kube-apiserver's webhook UIDs: configuration and position.
func hookID(config string, i int) string {
	return config + "/" + strconv.Itoa(i)
}

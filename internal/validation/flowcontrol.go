package validation

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/portcullis/portcullis/internal/flowcontrol"
)

// The values API Priority and Fairness accepts, sorted as kube-apiserver
// lists them in "supported values".
var (
	flowDistinguisherMethods = []string{string(flowcontrolv1.FlowDistinguisherMethodByNamespaceType), string(flowcontrolv1.FlowDistinguisherMethodByUserType)}
	flowSchemaVerbs          = []string{"create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"}
	flowSubjectKinds         = []string{string(flowcontrolv1.SubjectKindGroup), string(flowcontrolv1.SubjectKindServiceAccount), string(flowcontrolv1.SubjectKindUser)}
	priorityLevelTypes       = []string{string(flowcontrolv1.PriorityLevelEnablementExempt), string(flowcontrolv1.PriorityLevelEnablementLimited)}
	limitResponseTypes       = []string{string(flowcontrolv1.LimitResponseTypeQueue), string(flowcontrolv1.LimitResponseTypeReject)}
)

const (
	maxMatchingPrecedence = 10000
	maxQueues             = 10_000_000
	// maxHashBits is the entropy a shuffle-sharding hash offers: a deal of
	// handSize cards from a deck of queues may need no more.
	maxHashBits = 60
	// preserveZeroSharesAnnotation was v1beta3's way of keeping a zero
	// nominalConcurrencyShares; v1 stores the zero itself and refuses it.
	preserveZeroSharesAnnotation = "flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares"
)

func validateFlowSchema(fs *flowcontrolv1.FlowSchema) field.ErrorList {
	errs := validateMeta(&fs.ObjectMeta, false, nameIsDNSSubdomain)
	sp := field.NewPath("spec")
	errs = append(errs, validateFlowSchemaSpec(fs.Name, &fs.Spec, sp)...)
	if fixed, ok := flowcontrol.MandatoryFlowSchemaSpec(fs.Name); ok && !equality.Semantic.DeepEqual(fs.Spec, fixed) {
		errs = append(errs, field.Invalid(sp, goFields(fs.Spec), fmt.Sprintf("spec of '%s' must equal the fixed value", fs.Name)))
	}
	return append(errs, validateFlowSchemaStatus(&fs.Status)...)
}

func validateFlowSchemaSpec(name string, spec *flowcontrolv1.FlowSchemaSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	mp := p.Child("matchingPrecedence")
	switch prec := spec.MatchingPrecedence; {
	case prec <= 0:
		errs = append(errs, field.Invalid(mp, prec, "must be a positive value"))
	case prec > maxMatchingPrecedence:
		errs = append(errs, field.Invalid(mp, prec, fmt.Sprintf("must not be greater than %d", maxMatchingPrecedence)))
	}
	if spec.MatchingPrecedence == 1 && name != flowcontrolv1.FlowSchemaNameExempt {
		errs = append(errs, field.Invalid(mp, spec.MatchingPrecedence, "only the schema named 'exempt' may have matchingPrecedence 1"))
	}
	if d := spec.DistinguisherMethod; d != nil && !slices.Contains(flowDistinguisherMethods, string(d.Type)) {
		errs = append(errs, field.NotSupported(p.Child("distinguisherMethod", "type"), goFields(d), flowDistinguisherMethods))
	}
	plp := p.Child("priorityLevelConfiguration", "name")
	if pl := spec.PriorityLevelConfiguration.Name; pl == "" {
		errs = append(errs, field.Required(plp, "must reference a priority level"))
	} else {
		for _, msg := range nameIsDNSSubdomain(pl, false) {
			errs = append(errs, field.Invalid(plp, pl, msg))
		}
	}
	for i := range spec.Rules {
		errs = append(errs, validateFlowSchemaRule(&spec.Rules[i], p.Child("rules").Index(i))...)
	}
	return errs
}

func validateFlowSchemaRule(rule *flowcontrolv1.PolicyRulesWithSubjects, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(rule.Subjects) == 0 {
		errs = append(errs, field.Required(p.Child("subjects"), "subjects must contain at least one value"))
	}
	for i := range rule.Subjects {
		errs = append(errs, validateFlowSubject(&rule.Subjects[i], p.Child("subjects").Index(i))...)
	}
	if len(rule.ResourceRules) == 0 && len(rule.NonResourceRules) == 0 {
		errs = append(errs, field.Required(p, "at least one of resourceRules and nonResourceRules has to be non-empty"))
	}
	for i := range rule.ResourceRules {
		errs = append(errs, validateFlowResourceRule(&rule.ResourceRules[i], p.Child("resourceRules").Index(i))...)
	}
	for i := range rule.NonResourceRules {
		errs = append(errs, validateFlowNonResourceRule(&rule.NonResourceRules[i], p.Child("nonResourceRules").Index(i))...)
	}
	return errs
}

func validateFlowSubject(s *flowcontrolv1.Subject, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	// Each kind names its member; the members of the other kinds must be
	// absent, checked in the order user, group, serviceAccount... as
	// kube-apiserver reports them for each kind.
	forbidUser := func() {
		if s.User != nil {
			errs = append(errs, field.Forbidden(p.Child("user"), "user is forbidden when subject kind is not 'User'"))
		}
	}
	forbidGroup := func() {
		if s.Group != nil {
			errs = append(errs, field.Forbidden(p.Child("group"), "group is forbidden when subject kind is not 'Group'"))
		}
	}
	forbidServiceAccount := func() {
		if s.ServiceAccount != nil {
			errs = append(errs, field.Forbidden(p.Child("serviceAccount"), "serviceAccount is forbidden when subject kind is not 'ServiceAccount'"))
		}
	}
	switch s.Kind {
	case flowcontrolv1.SubjectKindServiceAccount:
		errs = append(errs, validateFlowServiceAccount(s.ServiceAccount, p.Child("serviceAccount"))...)
		forbidUser()
		forbidGroup()
	case flowcontrolv1.SubjectKindUser:
		if s.User == nil {
			errs = append(errs, field.Required(p.Child("user"), "user is required when subject kind is 'User'"))
		} else if s.User.Name == "" {
			errs = append(errs, field.Required(p.Child("user", "name"), ""))
		}
		forbidServiceAccount()
		forbidGroup()
	case flowcontrolv1.SubjectKindGroup:
		if s.Group == nil {
			errs = append(errs, field.Required(p.Child("group"), "group is required when subject kind is 'Group'"))
		} else if s.Group.Name == "" {
			errs = append(errs, field.Required(p.Child("group", "name"), ""))
		}
		forbidServiceAccount()
		forbidUser()
	default:
		errs = append(errs, field.NotSupported(p.Child("kind"), s.Kind, flowSubjectKinds))
	}
	return errs
}

func validateFlowServiceAccount(sa *flowcontrolv1.ServiceAccountSubject, p *field.Path) field.ErrorList {
	if sa == nil {
		return field.ErrorList{field.Required(p, "serviceAccount is required when subject kind is 'ServiceAccount'")}
	}
	var errs field.ErrorList
	switch {
	case sa.Name == "":
		errs = append(errs, field.Required(p.Child("name"), ""))
	case sa.Name != flowcontrolv1.NameAll:
		for _, msg := range genericvalidation.ValidateServiceAccountName(sa.Name, false) {
			errs = append(errs, field.Invalid(p.Child("name"), sa.Name, msg))
		}
	}
	if sa.Namespace == "" {
		errs = append(errs, field.Required(p.Child("namespace"), "must specify namespace for service account"))
	} else {
		for _, msg := range genericvalidation.ValidateNamespaceName(sa.Namespace, false) {
			errs = append(errs, field.Invalid(p.Child("namespace"), sa.Namespace, msg))
		}
	}
	return errs
}

// flowVerbs checks the verbs of a resource or non-resource rule.
func flowVerbs(verbs []string, p *field.Path) field.ErrorList {
	switch {
	case len(verbs) == 0:
		return field.ErrorList{field.Required(p, "verbs must contain at least one value")}
	case slices.Contains(verbs, flowcontrolv1.VerbAll):
		if len(verbs) > 1 {
			return field.ErrorList{field.Invalid(p, verbs, "if '*' is present, must not specify other verbs")}
		}
	default:
		for _, v := range verbs {
			if !slices.Contains(flowSchemaVerbs, v) {
				return field.ErrorList{field.NotSupported(p, verbs, flowSchemaVerbs)}
			}
		}
	}
	return nil
}

func validateFlowResourceRule(rule *flowcontrolv1.ResourcePolicyRule, p *field.Path) field.ErrorList {
	errs := flowVerbs(rule.Verbs, p.Child("verbs"))
	if len(rule.APIGroups) == 0 {
		errs = append(errs, field.Required(p.Child("apiGroups"), "resource rules must supply at least one api group"))
	} else if len(rule.APIGroups) > 1 && slices.Contains(rule.APIGroups, flowcontrolv1.APIGroupAll) {
		errs = append(errs, field.Invalid(p.Child("apiGroups"), rule.APIGroups, "if '*' is present, must not specify other api groups"))
	}
	if len(rule.Resources) == 0 {
		errs = append(errs, field.Required(p.Child("resources"), "resource rules must supply at least one resource"))
	} else if len(rule.Resources) > 1 && slices.Contains(rule.Resources, flowcontrolv1.ResourceAll) {
		errs = append(errs, field.Invalid(p.Child("resources"), rule.Resources, "if '*' is present, must not specify other resources"))
	}
	np := p.Child("namespaces")
	switch {
	case len(rule.Namespaces) == 0 && !rule.ClusterScope:
		errs = append(errs, field.Required(np, "resource rules that are not cluster scoped must supply at least one namespace"))
	case slices.Contains(rule.Namespaces, flowcontrolv1.NamespaceEvery):
		if len(rule.Namespaces) > 1 {
			errs = append(errs, field.Invalid(np, rule.Namespaces, "if '*' is present, must not specify other namespaces"))
		}
	default:
		for i, ns := range rule.Namespaces {
			for _, msg := range genericvalidation.ValidateNamespaceName(ns, false) {
				errs = append(errs, field.Invalid(np.Index(i), ns, "each member of this list must be '*' or a DNS-1123 label; "+msg))
			}
		}
	}
	return errs
}

func validateFlowNonResourceRule(rule *flowcontrolv1.NonResourcePolicyRule, p *field.Path) field.ErrorList {
	errs := flowVerbs(rule.Verbs, p.Child("verbs"))
	up := p.Child("nonResourceURLs")
	switch {
	case len(rule.NonResourceURLs) == 0:
		errs = append(errs, field.Required(up, "nonResourceURLs must contain at least one value"))
	case slices.Contains(rule.NonResourceURLs, flowcontrolv1.NonResourceAll):
		if len(rule.NonResourceURLs) > 1 {
			errs = append(errs, field.Invalid(up, rule.NonResourceURLs, "if '*' is present, must not specify other non-resource URLs"))
		}
	default:
		for i, u := range rule.NonResourceURLs {
			if msg := nonResourceURLProblem(u); msg != "" {
				errs = append(errs, field.Invalid(up.Index(i), u, msg))
			}
		}
	}
	return errs
}

// nonResourceURLProblem says what is wrong with a non-resource URL of a
// flow schema rule, or "" when nothing is.
func nonResourceURLProblem(u string) string {
	switch {
	case u == "":
		return "must not be empty"
	case u == "/":
		return ""
	case !strings.HasPrefix(u, "/"):
		return "must start with slash"
	case strings.Contains(u, " "):
		return "must not contain white-space"
	case strings.Contains(u, "//"):
		return "must not contain double slash"
	}
	if n := strings.Count(u, "*"); n > 1 || (n == 1 && !strings.HasSuffix(u, "/*")) {
		return "wildcard can only do suffix matching"
	}
	return ""
}

func validateFlowSchemaStatus(s *flowcontrolv1.FlowSchemaStatus) field.ErrorList {
	types := make([]string, len(s.Conditions))
	for i, c := range s.Conditions {
		types[i] = string(c.Type)
	}
	return conditionTypes(types)
}

// conditionTypes checks the condition types of a flow schema's or priority
// level's status: each present, none twice.
func conditionTypes(types []string) field.ErrorList {
	var errs field.ErrorList
	cp := field.NewPath("status", "conditions")
	seen := map[string]bool{}
	for i, t := range types {
		if seen[t] {
			errs = append(errs, field.Duplicate(cp.Index(i).Child("type"), t))
		}
		seen[t] = true
		if t == "" {
			errs = append(errs, field.Required(cp.Index(i).Child("type"), ""))
		}
	}
	return errs
}

func validatePriorityLevelConfiguration(pl *flowcontrolv1.PriorityLevelConfiguration) field.ErrorList {
	errs := validateMeta(&pl.ObjectMeta, false, nameIsDNSSubdomain)
	if _, ok := pl.Annotations[preserveZeroSharesAnnotation]; ok {
		errs = append(errs, field.Forbidden(metadataPath.Child("annotations"), fmt.Sprintf("annotation '%s' is forbidden", preserveZeroSharesAnnotation)))
	}
	sp := field.NewPath("spec")
	errs = append(errs, validatePriorityLevelSpec(pl.Name, &pl.Spec, sp)...)
	if fixed, ok := flowcontrol.MandatoryPriorityLevelSpec(pl.Name); ok {
		have := pl.Spec.DeepCopy()
		detail := fmt.Sprintf("spec of '%s' must equal the fixed value", pl.Name)
		// The exempt level's own settings are the one part a cluster may
		// tune.
		if pl.Name == flowcontrolv1.PriorityLevelConfigurationNameExempt {
			have.Exempt = fixed.Exempt
			detail = fmt.Sprintf("spec of '%s' except the 'spec.exempt' field must equal the fixed value", pl.Name)
		}
		if !equality.Semantic.DeepEqual(*have, fixed) {
			errs = append(errs, field.Invalid(sp, goFields(pl.Spec), detail))
		}
	}
	return append(errs, validatePriorityLevelStatus(&pl.Status)...)
}

// Several of kube-apiserver's priority level rules are reported by its
// declarative validation, whose errors carry no detail; so do these.

func validatePriorityLevelSpec(name string, spec *flowcontrolv1.PriorityLevelConfigurationSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if (name == flowcontrolv1.PriorityLevelConfigurationNameExempt) != (spec.Type == flowcontrolv1.PriorityLevelEnablementExempt) {
		errs = append(errs, field.Invalid(p.Child("type"), spec.Type, "must be 'Exempt' if and only if `name` is 'exempt'"))
	}
	switch spec.Type {
	case flowcontrolv1.PriorityLevelEnablementExempt:
		if spec.Limited != nil {
			errs = append(errs, field.Forbidden(p.Child("limited"), ""))
		}
		if e := spec.Exempt; e != nil {
			ep := p.Child("exempt")
			if n := e.NominalConcurrencyShares; n != nil && *n < 0 {
				errs = append(errs, field.Invalid(ep.Child("nominalConcurrencyShares"), *n, "must be a non-negative integer"))
			}
			errs = append(errs, lendablePercent(e.LendablePercent, ep)...)
		}
	case flowcontrolv1.PriorityLevelEnablementLimited:
		if spec.Exempt != nil {
			errs = append(errs, field.Forbidden(p.Child("exempt"), ""))
		}
		if spec.Limited == nil {
			errs = append(errs, field.Required(p.Child("limited"), ""))
		} else {
			errs = append(errs, validateLimitedPriorityLevel(spec.Limited, p.Child("limited"))...)
		}
	case "":
		errs = append(errs, field.Required(p.Child("type"), ""))
	default:
		errs = append(errs, field.NotSupported(p.Child("type"), spec.Type, priorityLevelTypes))
	}
	return errs
}

func lendablePercent(v *int32, p *field.Path) field.ErrorList {
	if v != nil && (*v < 0 || *v > 100) {
		return field.ErrorList{field.Invalid(p.Child("lendablePercent"), *v, "must be between 0 and 100, inclusive")}
	}
	return nil
}

func validateLimitedPriorityLevel(l *flowcontrolv1.LimitedPriorityLevelConfiguration, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if n := l.NominalConcurrencyShares; n != nil && *n < 0 {
		errs = append(errs, field.Invalid(p.Child("nominalConcurrencyShares"), *n, "must be a non-negative integer"))
	}
	errs = append(errs, validateLimitResponse(&l.LimitResponse, p.Child("limitResponse"))...)
	errs = append(errs, lendablePercent(l.LendablePercent, p)...)
	if b := l.BorrowingLimitPercent; b != nil && *b < 0 {
		errs = append(errs, field.Invalid(p.Child("borrowingLimitPercent"), *b, "if specified, must be a non-negative integer"))
	}
	return errs
}

func validateLimitResponse(lr *flowcontrolv1.LimitResponse, p *field.Path) field.ErrorList {
	switch lr.Type {
	case flowcontrolv1.LimitResponseTypeReject:
		if lr.Queuing != nil {
			return field.ErrorList{field.Forbidden(p.Child("queuing"), "")}
		}
	case flowcontrolv1.LimitResponseTypeQueue:
		if lr.Queuing == nil {
			return field.ErrorList{field.Required(p.Child("queuing"), "")}
		}
		return validateQueuing(lr.Queuing, p.Child("queuing"))
	case "":
		return field.ErrorList{field.Required(p.Child("type"), "")}
	default:
		return field.ErrorList{field.NotSupported(p.Child("type"), lr.Type, limitResponseTypes)}
	}
	return nil
}

func validateQueuing(q *flowcontrolv1.QueuingConfiguration, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if q.QueueLengthLimit <= 0 {
		errs = append(errs, field.Invalid(p.Child("queueLengthLimit"), q.QueueLengthLimit, "must be positive"))
	}
	switch {
	case q.Queues <= 0:
		errs = append(errs, field.Invalid(p.Child("queues"), q.Queues, "must be positive"))
	case q.Queues > maxQueues:
		errs = append(errs, field.Invalid(p.Child("queues"), q.Queues, fmt.Sprintf("must not be greater than %d", maxQueues)))
	}
	hp := p.Child("handSize")
	switch {
	case q.HandSize <= 0:
		errs = append(errs, field.Invalid(hp, q.HandSize, "must be positive"))
	case q.HandSize > q.Queues:
		errs = append(errs, field.Invalid(hp, q.HandSize, fmt.Sprintf("should not be greater than queues (%d)", q.Queues)))
	case shuffleShardingBits(q.Queues, q.HandSize) > maxHashBits:
		errs = append(errs, field.Invalid(hp, q.HandSize, fmt.Sprintf("required entropy bits of deckSize %d and handSize %d should not be greater than %d", q.Queues, q.HandSize, maxHashBits)))
	}
	return errs
}

// shuffleShardingBits is the entropy a deal of hand cards from a deck of
// deck cards consumes: hand draws of log2(deck) bits each, rounded up.
func shuffleShardingBits(deck, hand int32) int {
	return int(math.Ceil(math.Log2(float64(deck)) * float64(hand)))
}

func validatePriorityLevelStatus(s *flowcontrolv1.PriorityLevelConfigurationStatus) field.ErrorList {
	types := make([]string, len(s.Conditions))
	for i, c := range s.Conditions {
		types[i] = string(c.Type)
	}
	return conditionTypes(types)
}

// goFields renders a value as kube-apiserver's error messages show the
// internal API types it validates (specdiff.go's goJSON).
func goFields(v any) json.RawMessage {
	return goJSON(reflect.ValueOf(v))
}

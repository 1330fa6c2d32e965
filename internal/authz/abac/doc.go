// Package abac is kube-apiserver's attribute-based access control
// authorizer (--authorization-mode=ABAC with --authorization-policy-file):
// a file of rules, read once at start, each allowing a user or group some
// resources or non-resource paths, read-only or fully.
//
// # The file
//
// One JSON object per line (a line that does not start with '{' is read as
// YAML, as kube-apiserver's decoder reads it); blank lines and lines whose
// first non-space character is '#' are skipped but counted, so errors name
// the line as an editor shows it. A line is either
//
//	{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy",
//	 "spec":{"user":"alice","namespace":"*","resource":"*","apiGroup":"*"}}
//
// or a legacy line without apiVersion and kind ({"user":"alice"}), which
// kube-apiserver still accepts with a warning. Lines are decoded by
// apimachinery's universal deserializer over a scheme of the two formats
// (packages v0 and v1beta1, named so that the Go type names in decoding
// errors are kube-apiserver's), and a line that names no kind, no version,
// or an unknown one is retried as a legacy line, as kube-apiserver does.
// Both formats are then converted to one rule: "*" as user or group becomes
// the group system:authenticated (so it does not cover anonymous
// requests); a legacy line without subject is every authenticated user,
// without namespace or resource all of them, with neither also every
// non-resource path, and any API group. A bad line stops the load with a
// *LoadError worded as kube-apiserver's ("error reading policy file P,
// line N: TEXT: REASON").
//
// # Decisions
//
// Rules are tried in file order; the first that matches allows, and when
// none does the answer is NoOpinion with the reason "No policy matched.".
// ABAC never denies. A rule matches when its subject matches (user exactly,
// group among the requester's groups, "*" anything; a rule with neither
// matches nobody), the verb is allowed (every rule allows get, list and
// watch; only a rule that is not read-only allows the rest), and then, for
// a resource request, namespace, resource and API group each equal the
// request's or are "*" (subresources and names are not looked at), or, for
// a non-resource request, the path is the rule's, or the rule is "*", or
// ends in "*" and the path starts with what precedes it.
//
// # Rules
//
// RulesFor serves SelfSubjectRulesReview as kube-apiserver's ABAC does: one
// ResourceRuleInfo or NonResourceRuleInfo per matching rule, with verbs
// get/list/watch or "*".
//
// The Authorizer implements authorizer.Authorizer and
// authorizer.RuleResolver; the server puts it in the chain where
// --authorization-mode lists ABAC.
package abac

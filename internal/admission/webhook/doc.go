// Package webhook calls admission webhooks: ValidatingWebhookConfiguration
// and MutatingWebhookConfiguration, with kube-apiserver's call semantics
// and error texts.
//
// # Pieces
//
// Upsert and Delete compile a configuration once (selectors, rules, match
// conditions, client settings) and rebuild an immutable snapshot of all
// webhooks, ordered by configuration name and then by position, filed in a
// matching.Index. A request looks up the few webhooks whose rules may
// match, then decides in kube-apiserver's order: namespaceSelector,
// objectSelector, rules, matchConditions. The review is encoded once per
// AdmissionReview version and POSTed over a client cached per CA bundle
// and server name, so connections are reused.
//
// # matchPolicy
//
// Under Equivalent (the default) a webhook whose rules name only another
// served version of a custom resource is called too (see package
// matching), with the request converted to that version as
// kube-apiserver sends it: kind, resource and the objects in the matched
// version, requestKind, requestResource and requestSubResource as the
// client asked; match conditions see the converted request too. A
// mutating webhook's patch applies to the converted object, which is
// converted back; the webhooks after it see the result.
//
// # Reinvocation
//
// Mutating takes part in the chain's reinvocation (admission.Reinvocation,
// carried in the context by admission.AdmitWithReinvocation). In the first
// round every matching webhook is called; when a webhook changes the
// object, the IfNeeded webhooks called before it are marked and the chain
// is asked for a second round. In the second round only marked webhooks
// are called, and if another plugin changed the object since the webhooks
// last saw it, every IfNeeded webhook called so far is marked first.
// Without a Reinvocation in the context, Admit runs once.
//
// # Credentials
//
// Options.KubeconfigFile is the kubeConfigFile of the plugins'
// WebhookAdmissionConfiguration. Its users are matched against the
// webhook's host as kube-apiserver matches them (host:port, then "*.suffix"
// wildcards, then for port 443 the bare host and its wildcards, then "*",
// then the current context's user) and give a bearer token (token or
// tokenFile), basic auth or a client certificate. Exec plugins, auth
// providers and impersonation are refused at load with
// ErrCredentialNotSupported.
//
// Options.Answers (portcullis admit) answers webhooks by name from
// recorded AdmissionReviews instead of calling them: the recorded
// response, its uid set to the request's, goes through every check a real
// answer does.
//
// # Observability
//
// Warnings go to request.State.AddWarning, audit annotations to
// AddAnnotation as "<webhook name>/<key>", plus kube-apiserver's
// mutation.webhook.admission.k8s.io/round_R_index_I (Metadata level),
// patch.webhook.admission.k8s.io/round_R_index_I (Request level: the
// State does not carry levels, so the audit backend must drop keys with
// the patch prefix below Request level) and the failed-open annotations.
// Metrics keep kube-apiserver's names and labels. Each webhook called is a
// part of the plugin's step in the decision trace (AddPart): its outcome,
// its denial or error, "recorded answer" when it was not called;
// validating webhooks' parts in webhook order, whichever answered first.
package webhook

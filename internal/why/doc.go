// Package why explains a request from an audit log: who authenticated it
// and how, what the authorizer decided and by which rule, and each
// admission plugin that ran, in order, with what each of its policy
// bindings and webhooks decided (the step's parts), the audit annotations
// it added, its outcome and duration.
// It reads the decision trace portcullis records in every audit event at
// Metadata level and above (the trace.portcullis.dev/decision
// annotation); for an event without one (kube-apiserver's, or a level
// that drops annotations) it says what kube-apiserver's own annotations
// tell.
package why

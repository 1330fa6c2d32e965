package manifest

import (
	"fmt"
	"slices"
	"strings"
)

// Kind names an admission plugin; its value is the plugin's registered name,
// which is also the value of the metrics' plugin label.
type Kind string

const (
	ValidatingAdmissionPolicy  Kind = "ValidatingAdmissionPolicy"
	MutatingAdmissionPolicy    Kind = "MutatingAdmissionPolicy"
	ValidatingAdmissionWebhook Kind = "ValidatingAdmissionWebhook"
	MutatingAdmissionWebhook   Kind = "MutatingAdmissionWebhook"
)

// Suffix is the name suffix reserved for static configurations.
const Suffix = ".static.k8s.io"

// GroupVersion is the only apiVersion a manifest object may have.
const GroupVersion = "admissionregistration.k8s.io/v1"

// Object kinds of admissionregistration.k8s.io/v1 used in manifests.
const (
	KindValidatingAdmissionPolicy        = "ValidatingAdmissionPolicy"
	KindValidatingAdmissionPolicyBinding = "ValidatingAdmissionPolicyBinding"
	KindMutatingAdmissionPolicy          = "MutatingAdmissionPolicy"
	KindMutatingAdmissionPolicyBinding   = "MutatingAdmissionPolicyBinding"
	KindValidatingWebhookConfiguration   = "ValidatingWebhookConfiguration"
	KindMutatingWebhookConfiguration     = "MutatingWebhookConfiguration"
)

// allowedKinds is the table of spec 000: the object kinds each plugin's
// directory may hold.
var allowedKinds = map[Kind][]string{
	ValidatingAdmissionPolicy:  {KindValidatingAdmissionPolicy, KindValidatingAdmissionPolicyBinding},
	MutatingAdmissionPolicy:    {KindMutatingAdmissionPolicy, KindMutatingAdmissionPolicyBinding},
	ValidatingAdmissionWebhook: {KindValidatingWebhookConfiguration},
	MutatingAdmissionWebhook:   {KindMutatingWebhookConfiguration},
}

// AllowedKinds returns the object kinds a plugin's directory may hold.
func (k Kind) AllowedKinds() []string { return slices.Clone(allowedKinds[k]) }

func (k Kind) valid() error {
	if _, ok := allowedKinds[k]; !ok {
		return fmt.Errorf("%w %q", ErrUnknownPlugin, string(k))
	}
	return nil
}

// allows reports whether kind, or kind without a "List" suffix (a typed
// list), is accepted by the plugin.
func (k Kind) allows(kind string) (item string, list bool, ok bool) {
	kinds := allowedKinds[k]
	if slices.Contains(kinds, kind) {
		return kind, false, true
	}
	if base, found := strings.CutSuffix(kind, "List"); found && slices.Contains(kinds, base) {
		return base, true, true
	}
	return "", false, false
}

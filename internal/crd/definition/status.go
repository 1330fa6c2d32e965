package definition

import (
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/transport"
)

// The reasons of the Established condition once the names are accepted,
// and of the KubernetesAPIApprovalPolicyConformant condition.
const (
	ReasonInitialNamesAccepted = "InitialNamesAccepted"
	ReasonInvalidCABundle      = "InvalidCABundle"

	ReasonApprovedAnnotation   = "ApprovedAnnotation"
	ReasonUnapprovedAnnotation = "UnapprovedAnnotation"
	ReasonMissingAnnotation    = "MissingAnnotation"
	ReasonInvalidAnnotation    = "InvalidAnnotation"
)

// EstablishedCondition is kube-apiserver's establishing rule: a
// definition whose names are accepted and that is not established yet
// becomes Established (reason InitialNamesAccepted), unless its
// conversion webhook's caBundle holds no usable certificate (False,
// reason InvalidCABundle). ok is false when the rule does not apply.
func EstablishedCondition(crd *apiextensionsv1.CustomResourceDefinition) (c apiextensionsv1.CustomResourceDefinitionCondition, ok bool) {
	if !IsConditionTrue(crd, apiextensionsv1.NamesAccepted) || IsEstablished(crd) {
		return c, false
	}
	if conv := crd.Spec.Conversion; conv != nil && conv.Webhook != nil && conv.Webhook.ClientConfig != nil && !usableCABundle(conv.Webhook.ClientConfig.CABundle) {
		return apiextensionsv1.CustomResourceDefinitionCondition{
			Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionFalse,
			Reason: ReasonInvalidCABundle, Message: "The conversion webhook CABundle is invalid",
		}, true
	}
	return apiextensionsv1.CustomResourceDefinitionCondition{
		Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue,
		Reason: ReasonInitialNamesAccepted, Message: messageInitial,
	}, true
}

// usableCABundle reports whether a client could be configured with
// caBundle as its roots; an empty bundle means the system roots.
func usableCABundle(caBundle []byte) bool {
	_, err := transport.TLSConfigFor(&transport.Config{TLS: transport.TLSConfig{CAData: caBundle}})
	return err == nil
}

// IsProtectedGroup reports whether group belongs to the Kubernetes
// project (k8s.io, kubernetes.io and their subdomains), whose definitions
// must carry the api-approved.kubernetes.io annotation.
func IsProtectedGroup(group string) bool {
	return group == "k8s.io" || strings.HasSuffix(group, ".k8s.io") ||
		group == "kubernetes.io" || strings.HasSuffix(group, ".kubernetes.io")
}

// APIApprovalCondition is kube-apiserver's API approval rule: for a
// protected group, the KubernetesAPIApprovalPolicyConformant condition
// that the api-approved.kubernetes.io annotation earns (True for a URL,
// False when it is missing, starts with "unapproved", or is neither);
// nil for any other group.
func APIApprovalCondition(crd *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinitionCondition {
	if !IsProtectedGroup(crd.Spec.Group) {
		return nil
	}
	const key = apiextensionsv1.KubeAPIApprovedAnnotation
	c := &apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.KubernetesAPIApprovalPolicyConformant, Status: apiextensionsv1.ConditionFalse}
	value := crd.Annotations[key]
	u, err := url.ParseRequestURI(value)
	switch {
	case value == "":
		c.Reason = ReasonMissingAnnotation
		c.Message = fmt.Sprintf("protected groups must have approval annotation %q, see https://github.com/kubernetes/enhancements/pull/1111", key)
	case strings.HasPrefix(value, "unapproved"):
		c.Reason = ReasonUnapprovedAnnotation
		c.Message = fmt.Sprintf("not approved: %q", value)
	case err == nil && u.Host != "" && u.Scheme != "":
		c.Status = apiextensionsv1.ConditionTrue
		c.Reason = ReasonApprovedAnnotation
		c.Message = fmt.Sprintf("approved in %v", value)
	default:
		c.Reason = ReasonInvalidAnnotation
		c.Message = fmt.Sprintf("protected groups must have approval annotation %q with either a URL or a reason starting with \"unapproved\", see https://github.com/kubernetes/enhancements/pull/1111", key)
	}
	return c
}

// Update is what the status rules change in one definition.
type Update struct {
	// Status is the definition's next status.
	Status apiextensionsv1.CustomResourceDefinitionStatus
	// Changed reports that Status differs from the stored status.
	Changed bool
	// Names reports that the naming rule wrote: names the definition held
	// may have been released, so the other definitions of its group are
	// to be looked at again once this update is stored.
	Names bool
}

// NextStatus applies the naming, establishing and API approval rules to
// crd, as kube-apiserver's three controllers do on seeing it; all is
// every definition known (see AcceptNames). Like those controllers, the
// establishing rule looks at crd as stored: a definition whose names are
// accepted by this update becomes Established on the next one.
func NextStatus(crd *apiextensionsv1.CustomResourceDefinition, all []*apiextensionsv1.CustomResourceDefinition, now time.Time) Update {
	next := crd.DeepCopy()
	var u Update
	if !NamesUpToDate(crd) {
		names, namesAccepted, established := AcceptNames(crd, all)
		if !reflect.DeepEqual(crd.Status.AcceptedNames, names) || !sameCondition(&namesAccepted, FindCondition(crd, apiextensionsv1.NamesAccepted)) {
			next.Status.AcceptedNames = names
			SetCondition(next, namesAccepted, now)
			SetCondition(next, established, now)
			u.Changed, u.Names = true, true
		}
	}
	if c, ok := EstablishedCondition(crd); ok && !sameCondition(&c, FindCondition(next, c.Type)) {
		SetCondition(next, c, now)
		u.Changed = true
	}
	if c := APIApprovalCondition(crd); c != nil && !sameCondition(c, FindCondition(next, c.Type)) {
		SetCondition(next, *c, now)
		u.Changed = true
	}
	u.Status = next.Status
	return u
}

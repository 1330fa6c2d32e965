package definition

import (
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/sets"
)

// The reasons and messages of the NamesAccepted condition, and of the
// Established condition until the names are first accepted.
const (
	ReasonNoConflicts        = "NoConflicts"
	ReasonPluralConflict     = "PluralConflict"
	ReasonSingularConflict   = "SingularConflict"
	ReasonShortNamesConflict = "ShortNamesConflict"
	ReasonKindConflict       = "KindConflict"
	ReasonListKindConflict   = "ListKindConflict"
	ReasonNotAccepted        = "NotAccepted"
	ReasonInstalling         = "Installing"

	messageNoConflicts = "no conflicts found"
	messageNotAccepted = "not all names are accepted"
	messageInitial     = "the initial names have been accepted"
)

// NamesUpToDate reports whether crd's accepted names are its requested
// names; the naming rule leaves such a definition alone.
func NamesUpToDate(crd *apiextensionsv1.CustomResourceDefinition) bool {
	return equality.Semantic.DeepEqual(crd.Spec.Names, crd.Status.AcceptedNames)
}

// AcceptNames is kube-apiserver's naming rule: which of crd's requested
// names it may have, given the names that the definitions of its group
// have been accepted under. all may hold any definitions, crd among them
// or not; crd's own accepted names count as claimed too, as in
// kube-apiserver, so a definition cannot move one of its names to
// another of its fields in one step.
//
// A requested name is accepted when it is already crd's, or claimed by
// no one: plural, singular and short names share one namespace (the
// resource names), kind and listKind another. A name that is not
// accepted keeps its old accepted value; categories are always accepted.
// NamesAccepted is False, with the reason of the last conflicting field
// in the order plural, singular, shortNames, kind, listKind, or True with
// reason NoConflicts. Established is what it was when True, otherwise
// False: Installing once the names are accepted, NotAccepted until then.
func AcceptNames(crd *apiextensionsv1.CustomResourceDefinition, all []*apiextensionsv1.CustomResourceDefinition) (
	names apiextensionsv1.CustomResourceDefinitionNames, namesAccepted, established apiextensionsv1.CustomResourceDefinitionCondition,
) {
	resources, kinds := claimedNames(crd, all)
	requested, accepted := crd.Spec.Names, crd.Status.AcceptedNames
	names = *accepted.DeepCopy()
	namesAccepted = apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.NamesAccepted, Status: apiextensionsv1.ConditionUnknown}
	conflict := func(reason string, err error) {
		namesAccepted.Status, namesAccepted.Reason, namesAccepted.Message = apiextensionsv1.ConditionFalse, reason, err.Error()
	}

	if err := freeOrOwn(requested.Plural, accepted.Plural, resources); err != nil {
		conflict(ReasonPluralConflict, err)
	} else {
		names.Plural = requested.Plural
	}
	if err := freeOrOwn(requested.Singular, accepted.Singular, resources); err != nil {
		conflict(ReasonSingularConflict, err)
	} else {
		names.Singular = requested.Singular
	}
	if !equalStrings(requested.ShortNames, accepted.ShortNames) {
		own := sets.New(accepted.ShortNames...)
		var errs []error
		for _, s := range requested.ShortNames {
			if own.Has(s) {
				continue
			}
			if err := freeOrOwn(s, "", resources); err != nil {
				errs = append(errs, err)
			}
		}
		if err := utilerrors.NewAggregate(errs); err != nil {
			conflict(ReasonShortNamesConflict, err)
		} else {
			names.ShortNames = requested.ShortNames
		}
	}
	if err := freeOrOwn(requested.Kind, accepted.Kind, kinds); err != nil {
		conflict(ReasonKindConflict, err)
	} else {
		names.Kind = requested.Kind
	}
	if err := freeOrOwn(requested.ListKind, accepted.ListKind, kinds); err != nil {
		conflict(ReasonListKindConflict, err)
	} else {
		names.ListKind = requested.ListKind
	}
	names.Categories = requested.Categories

	if namesAccepted.Status == apiextensionsv1.ConditionUnknown {
		namesAccepted.Status, namesAccepted.Reason, namesAccepted.Message = apiextensionsv1.ConditionTrue, ReasonNoConflicts, messageNoConflicts
	}

	established = apiextensionsv1.CustomResourceDefinitionCondition{
		Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionFalse, Reason: ReasonNotAccepted, Message: messageNotAccepted,
	}
	if old := FindCondition(crd, apiextensionsv1.Established); old != nil {
		established = *old
	}
	if established.Status != apiextensionsv1.ConditionTrue && namesAccepted.Status == apiextensionsv1.ConditionTrue {
		established = apiextensionsv1.CustomResourceDefinitionCondition{
			Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionFalse, Reason: ReasonInstalling, Message: messageInitial,
		}
	}
	return names, namesAccepted, established
}

// claimedNames collects the accepted resource names (plural, singular,
// short names) and kinds (kind, listKind) of the definitions of crd's
// group, crd's own included.
func claimedNames(crd *apiextensionsv1.CustomResourceDefinition, all []*apiextensionsv1.CustomResourceDefinition) (resources, kinds sets.Set[string]) {
	resources, kinds = sets.New[string](), sets.New[string]()
	add := func(n apiextensionsv1.CustomResourceDefinitionNames) {
		resources.Insert(n.Plural, n.Singular)
		resources.Insert(n.ShortNames...)
		kinds.Insert(n.Kind, n.ListKind)
	}
	for _, other := range all {
		if other == nil || other.Name == crd.Name || other.Spec.Group != crd.Spec.Group {
			continue
		}
		add(other.Status.AcceptedNames)
	}
	add(crd.Status.AcceptedNames)
	return resources, kinds
}

// freeOrOwn accepts requested when it is the name already accepted or
// one nobody claims.
func freeOrOwn(requested, accepted string, claimed sets.Set[string]) error {
	if requested == accepted || !claimed.Has(requested) {
		return nil
	}
	return fmt.Errorf("%q is already in use", requested)
}

// equalStrings is reflect.DeepEqual on string slices: nil and empty
// differ, as they do for kube-apiserver's naming controller.
func equalStrings(a, b []string) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

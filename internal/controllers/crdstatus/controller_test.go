package crdstatus

import (
	"context"
	"fmt"
	"log/slog"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/portcullis/portcullis/internal/controllers/controllertest"
)

type names = apiextensionsv1.CustomResourceDefinitionNames

// newCRD is a valid namespaced definition of names in group.
func newCRD(group string, n names, annotations map[string]string) *crd {
	return &crd{
		ObjectMeta: metav1.ObjectMeta{Name: n.Plural + "." + group, Annotations: annotations},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group, Scope: apiextensionsv1.NamespaceScoped, Names: n,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": {Type: "object"}},
				}},
			}},
		},
	}
}

type env struct {
	*controllertest.Env
	t   *testing.T
	ctx context.Context
}

func start(t *testing.T) *env {
	e := &env{Env: controllertest.New(t), t: t, ctx: context.Background()}
	c, err := New(e.Objects, e.API, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	controllertest.Run(t, c.Run)
	return e
}

func (e *env) create(c *crd) {
	e.t.Helper()
	if _, err := e.API.Create(e.ctx, c, "test"); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) get(name string) (*crd, error) {
	obj, err := e.Objects.Get(e.ctx, crds, "", name)
	if err != nil {
		return nil, err
	}
	return obj.(*crd), nil
}

// update changes the stored definition through the main resource,
// retrying on conflicts with the controller's status writes.
func (e *env) update(name string, change func(*crd)) {
	e.t.Helper()
	for {
		c, err := e.get(name)
		if err != nil {
			e.t.Fatal(err)
		}
		change(c)
		_, err = e.API.Apply(e.ctx, c, "test")
		if apierrors.IsConflict(err) {
			continue
		}
		if err != nil {
			e.t.Fatal(err)
		}
		return
	}
}

// remove deletes a definition; with no cleanup controller running, the
// test removes the cleanup finalizer itself.
func (e *env) remove(name string) {
	e.t.Helper()
	if err := e.API.Remove(e.ctx, crds, "", name); err != nil {
		e.t.Fatal(err)
	}
	e.update(name, func(c *crd) { c.Finalizers = nil })
	controllertest.Eventually(e.t, func() (bool, string) {
		_, err := e.get(name)
		return apierrors.IsNotFound(err), fmt.Sprintf("%s still there: %v", name, err)
	})
}

// cond is what a condition says, without its time.
type cond struct{ Status, Reason, Message string }

// statusIs waits until the definition's accepted names and conditions
// (those listed, compared without their times) are as given.
func (e *env) statusIs(name string, accepted names, conds map[apiextensionsv1.CustomResourceDefinitionConditionType]cond) {
	e.t.Helper()
	controllertest.Eventually(e.t, func() (bool, string) {
		c, err := e.get(name)
		if err != nil {
			return false, err.Error()
		}
		got := map[apiextensionsv1.CustomResourceDefinitionConditionType]cond{}
		for _, x := range c.Status.Conditions {
			if _, asked := conds[x.Type]; asked {
				got[x.Type] = cond{Status: string(x.Status), Reason: x.Reason, Message: x.Message}
			}
			if x.LastTransitionTime.IsZero() {
				return false, fmt.Sprintf("condition %s has no transition time", x.Type)
			}
		}
		if diff := cmp.Diff(accepted, c.Status.AcceptedNames); diff != "" {
			return false, "accepted names (-want +got):\n" + diff
		}
		if diff := cmp.Diff(conds, got); diff != "" {
			return false, "conditions (-want +got):\n" + diff
		}
		return true, ""
	})
}

var (
	namesAccepted = cond{Status: "True", Reason: "NoConflicts", Message: "no conflicts found"}
	established   = cond{Status: "True", Reason: "InitialNamesAccepted", Message: "the initial names have been accepted"}
	notAccepted   = cond{Status: "False", Reason: "NotAccepted", Message: "not all names are accepted"}
)

func TestAcceptedAndEstablished(t *testing.T) {
	e := start(t)
	e.create(newCRD("example.com", names{Plural: "widgets", Kind: "Widget", ShortNames: []string{"wd"}, Categories: []string{"all"}}, nil))
	e.statusIs("widgets.example.com",
		names{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList", ShortNames: []string{"wd"}, Categories: []string{"all"}},
		map[apiextensionsv1.CustomResourceDefinitionConditionType]cond{
			apiextensionsv1.NamesAccepted: namesAccepted,
			apiextensionsv1.Established:   established,
		})
	c, err := e.get("widgets.example.com")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Status.Conditions) != 2 {
		t.Errorf("conditions %+v, want NamesAccepted and Established only", c.Status.Conditions)
	}
	if diff := cmp.Diff([]string{"v1"}, c.Status.StoredVersions); diff != "" {
		t.Errorf("storedVersions (-want +got):\n%s", diff)
	}
}

func TestConflictResolvedWhenTheHolderGoes(t *testing.T) {
	e := start(t)
	widgets := names{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"}
	e.create(newCRD("example.com", names{Plural: "widgets", Kind: "Widget"}, nil))
	e.statusIs("widgets.example.com", widgets, map[apiextensionsv1.CustomResourceDefinitionConditionType]cond{
		apiextensionsv1.NamesAccepted: namesAccepted, apiextensionsv1.Established: established,
	})

	// A second definition asks for the same kind under another plural.
	e.create(newCRD("example.com", names{Plural: "gadgets", Singular: "gadget", Kind: "Widget", ListKind: "GadgetList"}, nil))
	e.statusIs("gadgets.example.com", names{Plural: "gadgets", Singular: "gadget", ListKind: "GadgetList"}, map[apiextensionsv1.CustomResourceDefinitionConditionType]cond{
		apiextensionsv1.NamesAccepted: {Status: "False", Reason: "KindConflict", Message: `"Widget" is already in use`},
		apiextensionsv1.Established:   notAccepted,
	})

	// Another group has its own names.
	e.create(newCRD("example.org", names{Plural: "widgets", Kind: "Widget"}, nil))
	e.statusIs("widgets.example.org", widgets, map[apiextensionsv1.CustomResourceDefinitionConditionType]cond{
		apiextensionsv1.NamesAccepted: namesAccepted, apiextensionsv1.Established: established,
	})

	e.remove("widgets.example.com")
	e.statusIs("gadgets.example.com", names{Plural: "gadgets", Singular: "gadget", Kind: "Widget", ListKind: "GadgetList"}, map[apiextensionsv1.CustomResourceDefinitionConditionType]cond{
		apiextensionsv1.NamesAccepted: namesAccepted, apiextensionsv1.Established: established,
	})
}

func TestConflictResolvedWhenTheHolderRenames(t *testing.T) {
	e := start(t)
	e.create(newCRD("example.com", names{Plural: "widgets", Kind: "Widget", ShortNames: []string{"wd"}}, nil))
	e.statusIs("widgets.example.com", names{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList", ShortNames: []string{"wd"}},
		map[apiextensionsv1.CustomResourceDefinitionConditionType]cond{apiextensionsv1.Established: established})

	e.create(newCRD("example.com", names{Plural: "gadgets", Kind: "Gadget", ShortNames: []string{"gd", "wd"}}, nil))
	gadgets := names{Plural: "gadgets", Singular: "gadget", Kind: "Gadget", ListKind: "GadgetList"}
	e.statusIs("gadgets.example.com", gadgets, map[apiextensionsv1.CustomResourceDefinitionConditionType]cond{
		apiextensionsv1.NamesAccepted: {Status: "False", Reason: "ShortNamesConflict", Message: `"wd" is already in use`},
		apiextensionsv1.Established:   notAccepted,
	})

	// Short names may change on an established definition; the one it
	// gives up goes to the other.
	e.update("widgets.example.com", func(c *crd) { c.Spec.Names.ShortNames = []string{"wg"} })
	gadgets.ShortNames = []string{"gd", "wd"}
	e.statusIs("gadgets.example.com", gadgets, map[apiextensionsv1.CustomResourceDefinitionConditionType]cond{
		apiextensionsv1.NamesAccepted: namesAccepted, apiextensionsv1.Established: established,
	})
	e.statusIs("widgets.example.com", names{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList", ShortNames: []string{"wg"}},
		map[apiextensionsv1.CustomResourceDefinitionConditionType]cond{apiextensionsv1.NamesAccepted: namesAccepted, apiextensionsv1.Established: established})
}

func TestAPIApproval(t *testing.T) {
	e := start(t)
	e.create(newCRD("widgets.k8s.io", names{Plural: "widgets", Kind: "Widget"}, map[string]string{
		apiextensionsv1.KubeAPIApprovedAnnotation: "unapproved, testing only",
	}))
	accepted := names{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"}
	e.statusIs("widgets.widgets.k8s.io", accepted, map[apiextensionsv1.CustomResourceDefinitionConditionType]cond{
		apiextensionsv1.Established:                           established,
		apiextensionsv1.KubernetesAPIApprovalPolicyConformant: {Status: "False", Reason: "UnapprovedAnnotation", Message: `not approved: "unapproved, testing only"`},
	})
	e.update("widgets.widgets.k8s.io", func(c *crd) {
		c.Annotations[apiextensionsv1.KubeAPIApprovedAnnotation] = "https://github.com/kubernetes/enhancements/pull/1111"
	})
	e.statusIs("widgets.widgets.k8s.io", accepted, map[apiextensionsv1.CustomResourceDefinitionConditionType]cond{
		apiextensionsv1.Established:                           established,
		apiextensionsv1.KubernetesAPIApprovalPolicyConformant: {Status: "True", Reason: "ApprovedAnnotation", Message: "approved in https://github.com/kubernetes/enhancements/pull/1111"},
	})
}

func TestInvalidCABundle(t *testing.T) {
	e := start(t)
	c := newCRD("example.com", names{Plural: "widgets", Kind: "Widget"}, nil)
	url := "https://convert.example.com/widgets"
	c.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter, Webhook: &apiextensionsv1.WebhookConversion{
		ClientConfig: &apiextensionsv1.WebhookClientConfig{URL: &url, CABundle: []byte("not a certificate")}, ConversionReviewVersions: []string{"v1"},
	}}
	e.create(c)
	e.statusIs("widgets.example.com", names{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"}, map[apiextensionsv1.CustomResourceDefinitionConditionType]cond{
		apiextensionsv1.NamesAccepted: namesAccepted,
		apiextensionsv1.Established:   {Status: "False", Reason: "InvalidCABundle", Message: "The conversion webhook CABundle is invalid"},
	})
}

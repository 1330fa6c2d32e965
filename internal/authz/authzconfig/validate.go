package authzconfig

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"

	"github.com/portcullis/portcullis/internal/authz/webhook"
)

// maxWebhookTimeout is the longest webhook timeout allowed.
const maxWebhookTimeout = 30 * time.Second

// validate checks a defaulted configuration with kube-apiserver's rules
// and messages and compiles the webhooks' match conditions. Unlike
// kube-apiserver, whose paths leave out the "webhook" step, webhook fields
// are reported at their real path (authorizers[0].webhook.timeout).
func validate(c *apiserverv1.AuthorizationConfiguration) ([]*webhook.Matcher, field.ErrorList) {
	root := field.NewPath("authorizers")
	var errs field.ErrorList
	if len(c.Authorizers) == 0 {
		errs = append(errs, field.Required(root, "at least one authorization mode must be defined"))
	}
	matchers := make([]*webhook.Matcher, len(c.Authorizers))
	seenTypes := sets.New[string]()
	seenNames := sets.New[string]()
	for i, a := range c.Authorizers {
		p := root.Index(i)
		switch {
		case a.Type == "":
			errs = append(errs, field.Required(p.Child("type"), ""))
			continue
		case !sets.New(knownTypes...).Has(a.Type):
			errs = append(errs, field.NotSupported(p.Child("type"), a.Type, knownTypes))
			continue
		case seenTypes.Has(a.Type) && a.Type != TypeWebhook:
			// Only webhooks may appear more than once.
			errs = append(errs, field.Duplicate(p.Child("type"), a.Type))
			continue
		}
		seenTypes.Insert(a.Type)

		nameOK := false
		switch {
		case a.Name == "":
			errs = append(errs, field.Required(p.Child("name"), ""))
		case seenNames.Has(a.Name):
			errs = append(errs, field.Duplicate(p.Child("name"), a.Name))
		default:
			if msgs := utilvalidation.IsDNS1123Subdomain(a.Name); len(msgs) > 0 {
				errs = append(errs, field.Invalid(p.Child("name"), a.Name,
					"authorizer name is invalid: "+strings.Join(msgs, ", ")))
			} else {
				nameOK = true
			}
		}
		seenNames.Insert(a.Name)

		if a.Type != TypeWebhook {
			// kube-apiserver's own rule: the built-in authorizers are named
			// after their type, as --authorization-mode names them.
			if want := nameForMode(a.Type); nameOK && a.Name != want {
				errs = append(errs, field.Invalid(p.Child("name"), a.Name,
					fmt.Sprintf("expected name %s for authorizer %s instead of %s", want, a.Type, a.Name)))
			}
			if a.Webhook != nil {
				errs = append(errs, field.Invalid(p.Child("webhook"), "non-null", "may only be specified when type=Webhook"))
			}
			continue
		}
		if a.Webhook == nil {
			errs = append(errs, field.Required(p.Child("webhook"), "required when type=Webhook"))
			continue
		}
		m, werrs := validateWebhook(a.Webhook, p) // kube-apiserver words these paths without ".webhook"
		errs = append(errs, werrs...)
		matchers[i] = m
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return matchers, nil
}

func validateWebhook(w *apiserverv1.WebhookConfiguration, p *field.Path) (*webhook.Matcher, field.ErrorList) {
	var errs field.ErrorList
	switch d := w.Timeout.Duration; {
	case d == 0:
		errs = append(errs, field.Required(p.Child("timeout"), ""))
	case d < 0 || d > maxWebhookTimeout:
		errs = append(errs, field.Invalid(p.Child("timeout"), d.String(), "must be > 0s and <= 30s"))
	}
	errs = append(errs, validateTTL(w.AuthorizedTTL.Duration, p.Child("authorizedTTL"))...)
	errs = append(errs, validateTTL(w.UnauthorizedTTL.Duration, p.Child("unauthorizedTTL"))...)

	switch w.SubjectAccessReviewVersion {
	case "":
		errs = append(errs, field.Required(p.Child("subjectAccessReviewVersion"), ""))
	case "v1", "v1beta1":
	default:
		errs = append(errs, field.NotSupported(p.Child("subjectAccessReviewVersion"), w.SubjectAccessReviewVersion, []string{"v1", "v1beta1"}))
	}

	switch w.MatchConditionSubjectAccessReviewVersion {
	case "":
		if len(w.MatchConditions) > 0 {
			errs = append(errs, field.Required(p.Child("matchConditionSubjectAccessReviewVersion"), "required if match conditions are specified"))
		}
	case "v1":
	default:
		errs = append(errs, field.NotSupported(p.Child("matchConditionSubjectAccessReviewVersion"), w.MatchConditionSubjectAccessReviewVersion, []string{"v1"}))
	}

	switch w.FailurePolicy {
	case "":
		errs = append(errs, field.Required(p.Child("failurePolicy"), ""))
	case apiserverv1.FailurePolicyNoOpinion, apiserverv1.FailurePolicyDeny:
	default:
		errs = append(errs, field.NotSupported(p.Child("failurePolicy"), w.FailurePolicy, []string{apiserverv1.FailurePolicyNoOpinion, apiserverv1.FailurePolicyDeny}))
	}

	errs = append(errs, validateConnection(w.ConnectionInfo, p.Child("connectionInfo"))...)

	m, merrs := webhook.CompileMatchConditions(w.MatchConditions, p)
	errs = append(errs, merrs...)
	return m, errs
}

func validateTTL(d time.Duration, p *field.Path) field.ErrorList {
	switch {
	case d == 0:
		return field.ErrorList{field.Required(p, "")}
	case d < 0:
		return field.ErrorList{field.Invalid(p, d.String(), "must be > 0s")}
	}
	return nil
}

func validateConnection(c apiserverv1.WebhookConnectionInfo, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	file := p.Child("kubeConfigFile")
	switch c.Type {
	case "":
		errs = append(errs, field.Required(p.Child("type"), ""))
	case apiserverv1.AuthorizationWebhookConnectionInfoTypeInCluster:
		// The in-cluster configuration points an API server at itself.
		errs = append(errs, field.Invalid(p.Child("type"), c.Type,
			"InClusterConfig is not supported for an API server (it would call its own SubjectAccessReview API): use KubeConfigFile"))
		if c.KubeConfigFile != nil {
			errs = append(errs, field.Invalid(file, *c.KubeConfigFile, "can only be set when type=KubeConfigFile"))
		}
	case apiserverv1.AuthorizationWebhookConnectionInfoTypeKubeConfigFile:
		switch {
		case c.KubeConfigFile == nil || *c.KubeConfigFile == "":
			errs = append(errs, field.Required(file, ""))
		case !filepath.IsAbs(*c.KubeConfigFile):
			errs = append(errs, field.Invalid(file, *c.KubeConfigFile, "must be an absolute path"))
		default:
			info, err := os.Stat(*c.KubeConfigFile)
			switch {
			case err != nil:
				errs = append(errs, field.Invalid(file, *c.KubeConfigFile, fmt.Sprintf("error loading file: %v", err)))
			case !info.Mode().IsRegular():
				errs = append(errs, field.Invalid(file, *c.KubeConfigFile, "must be a regular file"))
			}
		}
	default:
		errs = append(errs, field.NotSupported(p.Child("type"), c.Type,
			[]string{apiserverv1.AuthorizationWebhookConnectionInfoTypeKubeConfigFile}))
	}
	return errs
}

package resourcequota

import (
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/portcullis/portcullis/internal/configfile"
)

// Configuration is the plugin's configuration file
// (apiserver.config.k8s.io/v1 Configuration, also read as
// resourcequota.admission.k8s.io/v1beta1 and v1alpha1).
type Configuration struct {
	metav1.TypeMeta `json:",inline"`
	// LimitedResources are resources that may be consumed only where a
	// quota covers them.
	LimitedResources []LimitedResource `json:"limitedResources"`
}

// LimitedResource names a resource whose usage needs a covering quota.
type LimitedResource struct {
	// APIGroup and Resource are the resource written ("" is core).
	APIGroup string `json:"apiGroup,omitempty"`
	Resource string `json:"resource"`
	// MatchContains: a usage name containing one of these needs a quota
	// that limits it (e.g. "requests.cpu").
	MatchContains []string `json:"matchContains,omitempty"`
	// MatchScopes: an object in one of these scopes needs a quota with
	// that scope.
	MatchScopes []corev1.ScopedResourceSelectorRequirement `json:"matchScopes,omitempty"`
}

// fileType is the configuration's kind: ResourceQuotaConfiguration in
// apiserver.config.k8s.io/v1, Configuration in the older group.
var fileType = configfile.Type{
	Kind:     "ResourceQuotaConfiguration",
	Versions: []string{"apiserver.config.k8s.io/v1"},
	Legacy: []metav1.TypeMeta{
		{APIVersion: "resourcequota.admission.k8s.io/v1beta1", Kind: "Configuration"},
		{APIVersion: "resourcequota.admission.k8s.io/v1alpha1", Kind: "Configuration"},
	},
}

// Default is the configuration without a file: nothing limited.
func Default() *Configuration { return &Configuration{} }

// Decode reads the configuration strictly; no content is Default.
func Decode(data []byte) (*Configuration, error) {
	c := Default()
	err := fileType.Decode(data, c)
	switch {
	case errors.Is(err, configfile.ErrEmpty):
		return Default(), nil
	case err != nil:
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return c, nil
}

// Validate reports every limited resource without a resource name, in
// kube-apiserver's words.
func (c *Configuration) Validate() error {
	var errs field.ErrorList
	p := field.NewPath("limitedResources")
	for i, l := range c.LimitedResources {
		if l.Resource == "" {
			errs = append(errs, field.Required(p.Index(i).Child("resource"), ""))
		}
	}
	return errs.ToAggregate()
}

package podtolerationrestriction

import (
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/portcullis/portcullis/internal/configfile"
)

// ErrConfig wraps every problem with the plugin's configuration.
var ErrConfig = errors.New("PodTolerationRestriction configuration")

// Configuration is the plugin's configuration file,
// podtolerationrestriction.admission.k8s.io/v1alpha1 Configuration.
type Configuration struct {
	metav1.TypeMeta `json:",inline"`
	// Default are the tolerations of pods in namespaces without a
	// defaultTolerations annotation.
	Default []corev1.Toleration `json:"default,omitempty"`
	// Whitelist limits the tolerations of pods in namespaces without a
	// tolerationsWhitelist annotation.
	Whitelist []corev1.Toleration `json:"whitelist,omitempty"`
}

var configType = configfile.Type{
	Kind:     "Configuration",
	Versions: []string{"podtolerationrestriction.admission.k8s.io/v1alpha1"},
}

// decodeConfig reads and validates data; empty data is an empty
// configuration, as no file is in kube-apiserver.
func decodeConfig(data []byte) (*Configuration, error) {
	c := &Configuration{}
	err := configType.Decode(data, c)
	if errors.Is(err, configfile.ErrEmpty) {
		return c, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	p := field.NewPath("podtolerationrestriction")
	errs := append(validateTolerations(c.Default, p.Child("default")), validateTolerations(c.Whitelist, p.Child("whitelist"))...)
	if len(errs) > 0 {
		return nil, fmt.Errorf("%w: invalid config: %v", ErrConfig, errs)
	}
	return c, nil
}

// validateTolerations is kube-apiserver's validation of pod tolerations
// without the comparison operators, which its configuration check does
// not enable.
func validateTolerations(ts []corev1.Toleration, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, t := range ts {
		ip := p.Index(i)
		if t.Key != "" {
			errs = append(errs, metav1validation.ValidateLabelName(t.Key, ip.Child("key"))...)
		}
		if t.Key == "" && t.Operator != corev1.TolerationOpExists {
			errs = append(errs, field.Invalid(ip.Child("operator"), t.Operator,
				"operator must be Exists when `key` is empty, which means \"match all values and all keys\""))
		}
		if t.TolerationSeconds != nil && t.Effect != corev1.TaintEffectNoExecute {
			errs = append(errs, field.Invalid(ip.Child("effect"), t.Effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"))
		}
		switch t.Operator {
		case corev1.TolerationOpEqual, "":
			if msgs := validation.IsValidLabelValue(t.Value); len(msgs) != 0 {
				errs = append(errs, field.Invalid(ip.Child("operator"), t.Value, strings.Join(msgs, ";")))
			}
		case corev1.TolerationOpExists:
			if t.Value != "" {
				errs = append(errs, field.Invalid(ip.Child("operator"), t.Value, "value must be empty when `operator` is 'Exists'"))
			}
		case corev1.TolerationOpLt, corev1.TolerationOpGt:
			errs = append(errs, field.NotSupported(ip.Child("operator"), t.Operator,
				[]corev1.TolerationOperator{corev1.TolerationOpEqual, corev1.TolerationOpExists, corev1.TolerationOpLt, corev1.TolerationOpGt}))
		default:
			errs = append(errs, field.NotSupported(ip.Child("operator"), t.Operator,
				[]corev1.TolerationOperator{corev1.TolerationOpEqual, corev1.TolerationOpExists}))
		}
		if t.Effect != "" {
			switch t.Effect {
			case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
			default:
				errs = append(errs, field.NotSupported(ip.Child("effect"), t.Effect,
					[]corev1.TaintEffect{corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute}))
			}
		}
	}
	return errs
}

package validation

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"reflect"
	"slices"
	"strings"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The system priority classes: only these may carry the reserved prefix,
// and only with exactly these values.
var systemPriorityClasses = map[string]int32{
	"system-node-critical":    2000001000,
	"system-cluster-critical": 2000000000,
}

const (
	systemPriorityClassPrefix = "system-"
	// highestUserPriority is the largest value of a priority class that is
	// not a system one.
	highestUserPriority = 1000000000
)

func validatePriorityClass(pc *schedulingv1.PriorityClass) field.ErrorList {
	errs := validateMeta(&pc.ObjectMeta, false, nameIsDNSSubdomain)
	if strings.HasPrefix(pc.Name, systemPriorityClassPrefix) {
		if msg := systemPriorityClassProblem(pc); msg != "" {
			errs = append(errs, field.Forbidden(field.NewPath("metadata", "name"),
				"priority class names with '"+systemPriorityClassPrefix+"' prefix are reserved for system use only. error: "+msg))
		}
	} else if pc.Value > highestUserPriority {
		errs = append(errs, field.Forbidden(field.NewPath("value"), fmt.Sprintf("maximum allowed value of a user defined priority is %d", highestUserPriority)))
	}
	if p := pc.PreemptionPolicy; p != nil {
		errs = append(errs, validatePreemptionPolicy(*p, field.NewPath("preemptionPolicy"))...)
	}
	return errs
}

// systemPriorityClassProblem says why pc is not one of the system classes,
// or "" when it is.
func systemPriorityClassProblem(pc *schedulingv1.PriorityClass) string {
	value, known := systemPriorityClasses[pc.Name]
	switch {
	case !known:
		return pc.Name + " is not a known system priority class"
	case pc.Value != value:
		return fmt.Sprintf("value of %s PriorityClass must be %d", pc.Name, value)
	case pc.GlobalDefault:
		return fmt.Sprintf("globalDefault of %s PriorityClass must be false", pc.Name)
	}
	return ""
}

func validatePreemptionPolicy(p corev1.PreemptionPolicy, path *field.Path) field.ErrorList {
	switch p {
	case corev1.PreemptLowerPriority, corev1.PreemptNever:
		return nil
	case "":
		return field.ErrorList{field.Required(path, "")}
	}
	return field.ErrorList{field.NotSupported(path, p, []string{string(corev1.PreemptLowerPriority), string(corev1.PreemptNever)})}
}

// validatePriorityClassUpdate checks only what may not change: a class's
// value and preemption policy are read by pods already admitted with it.
func validatePriorityClassUpdate(pc, old *schedulingv1.PriorityClass) field.ErrorList {
	errs := validateMetaUpdate(&pc.ObjectMeta, &old.ObjectMeta)
	if pc.Value != old.Value {
		errs = append(errs, field.Forbidden(field.NewPath("value"), "may not be changed in an update."))
	}
	return append(errs, immutable(pc.PreemptionPolicy, old.PreemptionPolicy, field.NewPath("preemptionPolicy"))...)
}

func validateRuntimeClass(rc *nodev1.RuntimeClass) field.ErrorList {
	errs := validateMeta(&rc.ObjectMeta, false, nameIsDNSSubdomain)
	if o := rc.Overhead; o != nil {
		errs = append(errs, validateContainerResources(&corev1.ResourceRequirements{Limits: o.PodFixed}, field.NewPath("overhead"))...)
	}
	if s := rc.Scheduling; s != nil {
		sp := field.NewPath("scheduling")
		if s.NodeSelector != nil {
			errs = append(errs, validateLabelsAt(s.NodeSelector, sp.Child("nodeSelector"))...)
		}
		tp := sp.Child("tolerations")
		errs = append(errs, validateTolerations(s.Tolerations, tp)...)
		seen := map[corev1.Toleration]bool{}
		for i, t := range s.Tolerations {
			// Tolerations are a set keyed by everything but tolerationSeconds.
			key := corev1.Toleration{Key: t.Key, Operator: t.Operator, Value: t.Value, Effect: t.Effect}
			if seen[key] {
				errs = append(errs, field.Duplicate(tp.Index(i), internalToleration(t)))
			}
			seen[key] = true
		}
	}
	// The handler is checked by kube-apiserver's declarative rules, whose
	// errors come last.
	hp := field.NewPath("handler")
	if rc.Handler == "" {
		errs = append(errs, field.Required(hp, ""))
	} else {
		for _, msg := range nameIsDNSLabel(rc.Handler, false) {
			errs = append(errs, field.Invalid(hp, rc.Handler, msg))
		}
	}
	return errs
}

// toleration is kube-apiserver's internal form of a toleration, which its
// duplicate error prints: JSON with the Go field names, every field shown.
type toleration struct {
	Key               string
	Operator          corev1.TolerationOperator
	Value             string
	Effect            corev1.TaintEffect
	TolerationSeconds *int64
}

func internalToleration(t corev1.Toleration) toleration {
	return toleration{Key: t.Key, Operator: t.Operator, Value: t.Value, Effect: t.Effect, TolerationSeconds: t.TolerationSeconds}
}

func validateRuntimeClassUpdate(rc, old *nodev1.RuntimeClass) field.ErrorList {
	errs := validateMetaUpdate(&rc.ObjectMeta, &old.ObjectMeta)
	if rc.Handler != old.Handler {
		// Declarative validation reports it without the value.
		errs = append(errs, field.Invalid(field.NewPath("handler"), nil, genericvalidation.FieldImmutableErrorMsg))
	}
	return errs
}

func validateVolumeAttributesClass(c *storagev1.VolumeAttributesClass) field.ErrorList {
	errs := validateMeta(&c.ObjectMeta, false, nameIsDNSSubdomain)
	dp := field.NewPath("driverName")
	if c.DriverName == "" {
		errs = append(errs, field.Required(dp, ""))
	} else {
		errs = append(errs, qualifiedName(strings.ToLower(c.DriverName), dp)...)
	}
	pp := field.NewPath("parameters")
	errs = append(errs, validateClassParameters(c.Parameters, pp)...)
	if len(c.Parameters) == 0 {
		errs = append(errs, field.Required(pp, "must contain at least one key/value pair"))
	}
	return errs
}

// validateVolumeAttributesClassUpdate keeps what volumes were modified to.
func validateVolumeAttributesClassUpdate(c, old *storagev1.VolumeAttributesClass) field.ErrorList {
	errs := validateMetaUpdate(&c.ObjectMeta, &old.ObjectMeta)
	if c.DriverName != old.DriverName {
		errs = append(errs, field.Forbidden(field.NewPath("driverName"), "updates to driverName are forbidden."))
	}
	if !reflect.DeepEqual(c.Parameters, old.Parameters) {
		errs = append(errs, field.Forbidden(field.NewPath("parameters"), "updates to parameters are forbidden."))
	}
	return append(errs, validateVolumeAttributesClass(c)...)
}

func validateCSIStorageCapacity(c *storagev1.CSIStorageCapacity) field.ErrorList {
	return validateCSIStorageCapacityWith(c, false)
}

func validateCSIStorageCapacityWith(c *storagev1.CSIStorageCapacity, allowInvalidSelectorValue bool) field.ErrorList {
	errs := validateMeta(&c.ObjectMeta, true, nameIsDNSSubdomain)
	errs = append(errs, validateLabelSelector(c.NodeTopology, allowInvalidSelectorValue, field.NewPath("nodeTopology"))...)
	for _, msg := range nameIsDNSSubdomain(c.StorageClassName, false) {
		errs = append(errs, field.Invalid(field.NewPath("storageClassName"), c.StorageClassName, msg))
	}
	if c.Capacity != nil {
		errs = append(errs, nonNegativeQuantity(*c.Capacity, field.NewPath("capacity"))...)
	}
	return errs
}

// validateCSIStorageCapacityUpdate keeps the inputs of the driver's
// GetCapacity call: topology and class.
func validateCSIStorageCapacityUpdate(c, old *storagev1.CSIStorageCapacity) field.ErrorList {
	errs := validateMetaUpdate(&c.ObjectMeta, &old.ObjectMeta)
	if !equality.Semantic.DeepEqual(c.NodeTopology, old.NodeTopology) {
		errs = append(errs, field.Invalid(field.NewPath("nodeTopology"), c.NodeTopology, genericvalidation.FieldImmutableErrorMsg))
	}
	if c.StorageClassName != old.StorageClassName {
		errs = append(errs, field.Invalid(field.NewPath("storageClassName"), c.StorageClassName, genericvalidation.FieldImmutableErrorMsg))
	}
	return errs
}

func nonNegativeQuantity(q resource.Quantity, p *field.Path) field.ErrorList {
	if q.Sign() < 0 {
		return field.ErrorList{field.Invalid(p, q.String(), genericvalidation.IsNegativeErrorMsg)}
	}
	return nil
}

// maxTrustBundleSize bounds a ClusterTrustBundle's PEM text.
const maxTrustBundleSize = 1 << 20

func validateClusterTrustBundle(b *certificatesv1.ClusterTrustBundle, parseBundle bool) field.ErrorList {
	errs := validateMeta(&b.ObjectMeta, false, trustBundleName(b.Spec.SignerName))
	if b.Spec.SignerName != "" {
		errs = append(errs, validateSignerName(b.Spec.SignerName, field.NewPath("spec", "signerName"))...)
	}
	if parseBundle {
		errs = append(errs, validateTrustBundle(b.Spec.TrustBundle, field.NewPath("spec", "trustBundle"))...)
	}
	return errs
}

// trustBundleName is the name rule of a ClusterTrustBundle: a bundle of a
// signer is named after it ("example.com:signer:<name>"), one without a
// signer has no colon.
func trustBundleName(signer string) genericvalidation.ValidateNameFunc {
	return func(name string, prefix bool) []string {
		if signer == "" {
			if strings.Contains(name, ":") {
				return []string{`ClusterTrustBundle without signer name must not have ":" in its name`}
			}
			return nameIsDNSSubdomain(name, prefix)
		}
		want := strings.ReplaceAll(signer, "/", ":") + ":"
		if !strings.HasPrefix(name, want) {
			return []string{fmt.Sprintf("ClusterTrustBundle for signerName %s must be named with prefix %s", signer, want)}
		}
		return nameIsDNSSubdomain(strings.TrimPrefix(name, want), prefix)
	}
}

// validateClusterTrustBundleUpdate parses the bundle only when it changes,
// so that a stored bundle stays updatable whatever the parser's version.
func validateClusterTrustBundleUpdate(b, old *certificatesv1.ClusterTrustBundle) field.ErrorList {
	errs := validateClusterTrustBundle(b, b.Spec.TrustBundle != old.Spec.TrustBundle)
	errs = append(errs, validateMetaUpdate(&b.ObjectMeta, &old.ObjectMeta)...)
	return append(errs, immutable(b.Spec.SignerName, old.Spec.SignerName, field.NewPath("spec", "signerName"))...)
}

// validateTrustBundle requires one or more distinct CA certificates, PEM
// blocks without headers.
func validateTrustBundle(bundle string, p *field.Path) field.ErrorList {
	if len(bundle) > maxTrustBundleSize {
		return field.ErrorList{field.TooLong(p, "", maxTrustBundleSize)}
	}
	const omitted = "<value omitted>"
	var errs field.ErrorList
	seen := map[string][]int{}
	var order []string
	rest := []byte(bundle)
	for i := 0; ; i++ {
		var block *pem.Block
		if block, rest = pem.Decode(rest); block == nil {
			break
		}
		problem := ""
		if block.Type != "CERTIFICATE" {
			problem = fmt.Sprintf("entry %d has bad block type: %s", i, block.Type)
		} else if len(block.Headers) != 0 {
			problem = fmt.Sprintf("entry %d has PEM block headers", i)
		} else if cert, err := x509.ParseCertificate(block.Bytes); err != nil {
			problem = fmt.Sprintf("entry %d does not parse as X.509", i)
		} else if !cert.IsCA {
			problem = fmt.Sprintf("entry %d does not have the CA bit set", i)
		} else if !cert.BasicConstraintsValid {
			problem = fmt.Sprintf("entry %d has invalid basic constraints", i)
		}
		if problem != "" {
			errs = append(errs, field.Invalid(p, omitted, problem))
			continue
		}
		key := string(block.Bytes)
		if _, dup := seen[key]; !dup {
			order = append(order, key)
		}
		seen[key] = append(seen[key], i)
	}
	// Duplicates and emptiness are not worth reporting beside a bad block.
	if len(errs) > 0 {
		return errs
	}
	if len(seen) == 0 {
		return field.ErrorList{field.Invalid(p, omitted, "at least one trust anchor must be provided")}
	}
	for _, key := range order {
		if idx := seen[key]; len(idx) > 1 {
			errs = append(errs, field.Invalid(p, omitted, fmt.Sprintf("duplicate trust anchor (indices %v)", idx)))
		}
	}
	return errs
}

// supportedSelectPolicies and the other value lists are sorted as
// kube-apiserver's messages list them.
var (
	supportedSelectPolicies  = []string{"Disabled", "Max", "Min"}
	supportedScalingPolicies = []string{"Percent", "Pods"}
	supportedMetricSources   = []string{"ContainerResource", "External", "Object", "Pods", "Resource"}
)

func supported(list []string, v string) bool { return slices.Contains(list, v) }

package validation

import (
	"fmt"
	"reflect"
	"strings"

	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

const (
	maxProvisionerParameterSize = 256 * (1 << 10)
	maxProvisionerParameterLen  = 512
	maxCSIDriverNameLength      = 63
	maxCSINodeIDLength          = 256
)

var (
	supportedClassReclaimPolicy = []string{"Delete", "Retain"}
	supportedBindingModes       = []string{"Immediate", "WaitForFirstConsumer"}
	supportedFSGroupPolicies    = []string{"File", "None", "ReadWriteOnceWithFSType"}
	supportedLifecycleModes     = []string{"Ephemeral", "Persistent"}
)

// withGenericMeta mirrors kube-apiserver's order for kinds whose own
// validator does not check metadata: the kind's errors win; only when
// there are none does the generic metadata check run.
func withGenericMeta(errs field.ErrorList, m *metav1.ObjectMeta, namespaced bool) field.ErrorList {
	if len(errs) > 0 {
		return errs
	}
	return validateMeta(m, namespaced, nameIsPathSegment)
}

func validateStorageClass(sc *storagev1.StorageClass) field.ErrorList {
	errs := validateMeta(&sc.ObjectMeta, false, nameIsDNSSubdomain)
	pp := field.NewPath("provisioner")
	if sc.Provisioner == "" {
		errs = append(errs, field.Required(pp, ""))
	} else {
		errs = append(errs, qualifiedName(strings.ToLower(sc.Provisioner), pp)...)
	}
	errs = append(errs, validateClassParameters(sc.Parameters, field.NewPath("parameters"))...)
	if sc.ReclaimPolicy != nil && *sc.ReclaimPolicy != "" && !contains(supportedClassReclaimPolicy, string(*sc.ReclaimPolicy)) {
		errs = append(errs, field.NotSupported(field.NewPath("reclaimPolicy"), *sc.ReclaimPolicy, supportedClassReclaimPolicy))
	}
	bp := field.NewPath("volumeBindingMode")
	if sc.VolumeBindingMode == nil {
		errs = append(errs, field.Required(bp, ""))
	} else if !contains(supportedBindingModes, string(*sc.VolumeBindingMode)) {
		errs = append(errs, field.NotSupported(bp, *sc.VolumeBindingMode, supportedBindingModes))
	}
	return errs
}

func validateClassParameters(params map[string]string, p *field.Path) field.ErrorList {
	if len(params) > maxProvisionerParameterLen {
		return field.ErrorList{field.TooLong(p, "", maxProvisionerParameterLen)}
	}
	var errs field.ErrorList
	size := 0
	for k, v := range params {
		if k == "" {
			errs = append(errs, field.Invalid(p, k, "field can not be empty."))
		}
		size += len(k) + len(v)
	}
	if size > maxProvisionerParameterSize {
		errs = append(errs, field.TooLong(p, "", maxProvisionerParameterSize))
	}
	return errs
}

// validateStorageClassUpdate keeps what provisioned volumes depend on.
func validateStorageClassUpdate(sc, old *storagev1.StorageClass) field.ErrorList {
	errs := validateStorageClass(sc)
	errs = append(errs, validateMetaUpdate(&sc.ObjectMeta, &old.ObjectMeta)...)
	// kube-apiserver's declarative validation reports these without the value.
	for _, f := range []struct {
		name    string
		changed bool
	}{
		{"parameters", !equalStringMaps(sc.Parameters, old.Parameters)},
		{"provisioner", sc.Provisioner != old.Provisioner},
		{"reclaimPolicy", !reflect.DeepEqual(sc.ReclaimPolicy, old.ReclaimPolicy)},
		{"volumeBindingMode", !reflect.DeepEqual(sc.VolumeBindingMode, old.VolumeBindingMode)},
	} {
		if f.changed {
			errs = append(errs, field.Invalid(field.NewPath(f.name), nil, genericvalidation.FieldImmutableErrorMsg))
		}
	}
	return errs
}

// csiDriverName checks a CSI driver name: a DNS subdomain (any case) of at
// most 63 characters.
func csiDriverName(name string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if name == "" {
		errs = append(errs, field.Required(p, ""))
	}
	if len(name) > maxCSIDriverNameLength {
		errs = append(errs, field.TooLong(p, "", maxCSIDriverNameLength))
	}
	for _, msg := range isDNS1123Subdomain(strings.ToLower(name)) {
		errs = append(errs, field.Invalid(p, name, msg))
	}
	return errs
}

func validateCSIDriver(d *storagev1.CSIDriver) field.ErrorList {
	errs := csiDriverName(d.Name, field.NewPath("name"))
	sp := field.NewPath("spec")
	// "attachedRequired" is the reference's spelling of this path.
	if d.Spec.AttachRequired == nil {
		errs = append(errs, field.Required(sp.Child("attachedRequired"), ""))
	}
	if d.Spec.PodInfoOnMount == nil {
		errs = append(errs, field.Required(sp.Child("podInfoOnMount"), ""))
	}
	if d.Spec.StorageCapacity == nil {
		errs = append(errs, field.Required(sp.Child("storageCapacity"), ""))
	}
	if d.Spec.FSGroupPolicy == nil {
		errs = append(errs, field.Required(sp.Child("fsGroupPolicy"), fmt.Sprintf("fsGroupPolicy must be one of %v", supportedFSGroupPolicies)))
	} else if !contains(supportedFSGroupPolicies, string(*d.Spec.FSGroupPolicy)) {
		errs = append(errs, field.NotSupported(sp.Child("fsGroupPolicy"), *d.Spec.FSGroupPolicy, supportedFSGroupPolicies))
	}
	tp := sp.Child("tokenRequests")
	audiences := map[string]bool{}
	for i, tr := range d.Spec.TokenRequests {
		if audiences[tr.Audience] {
			errs = append(errs, field.Duplicate(tp.Index(i).Child("audience"), tr.Audience))
		}
		audiences[tr.Audience] = true
		if s := tr.ExpirationSeconds; s != nil {
			if *s < 600 {
				errs = append(errs, field.Invalid(tp.Index(i).Child("expirationSeconds"), *s, "may not specify a duration less than 10 minutes"))
			}
			if *s > 1<<32 {
				errs = append(errs, field.Invalid(tp.Index(i).Child("expirationSeconds"), *s, "may not specify a duration larger than 2^32 seconds"))
			}
		}
	}
	for _, m := range d.Spec.VolumeLifecycleModes {
		if !contains(supportedLifecycleModes, string(m)) {
			errs = append(errs, field.NotSupported(sp.Child("volumeLifecycleModes"), m, supportedLifecycleModes))
		}
	}
	return withGenericMeta(errs, &d.ObjectMeta, false)
}

func validateCSIDriverUpdate(d, old *storagev1.CSIDriver) field.ErrorList {
	errs := validateCSIDriver(d)
	errs = append(errs, validateMetaUpdate(&d.ObjectMeta, &old.ObjectMeta)...)
	sp := field.NewPath("spec")
	errs = append(errs, immutable(d.Spec.AttachRequired, old.Spec.AttachRequired, sp.Child("attachRequired"))...)
	errs = append(errs, immutable(d.Spec.FSGroupPolicy, old.Spec.FSGroupPolicy, sp.Child("fsGroupPolicy"))...)
	return append(errs, immutable(d.Spec.VolumeLifecycleModes, old.Spec.VolumeLifecycleModes, sp.Child("volumeLifecycleModes"))...)
}

func validateCSINode(n *storagev1.CSINode) field.ErrorList {
	errs := validateMeta(&n.ObjectMeta, false, nameIsDNSSubdomain)
	dp := field.NewPath("spec", "drivers")
	names := map[string]bool{}
	for i, d := range n.Spec.Drivers {
		ip := dp.Index(i)
		errs = append(errs, csiDriverName(d.Name, ip.Child("name"))...)
		if d.NodeID == "" {
			errs = append(errs, field.Required(ip.Child("nodeID"), ""))
		}
		if len(d.NodeID) > maxCSINodeIDLength {
			errs = append(errs, field.Invalid(ip.Child("nodeID"), d.NodeID, fmt.Sprintf("must be %d characters or less", maxCSINodeIDLength)))
		}
		if d.Allocatable != nil && d.Allocatable.Count != nil {
			errs = append(errs, nonNegative(int64(*d.Allocatable.Count), ip.Child("allocatable", "count"))...)
		}
		if names[d.Name] {
			errs = append(errs, field.Duplicate(ip.Child("name"), d.Name))
		}
		names[d.Name] = true
		keys := map[string]bool{}
		for _, k := range d.TopologyKeys {
			if k == "" {
				errs = append(errs, field.Required(ip, k))
			}
			if keys[k] {
				errs = append(errs, field.Duplicate(ip, k))
			}
			keys[k] = true
			errs = append(errs, qualifiedName(k, ip)...)
		}
	}
	return errs
}

func validateVolumeAttachment(va *storagev1.VolumeAttachment) field.ErrorList {
	errs := validateMeta(&va.ObjectMeta, false, nameIsDNSSubdomain)
	sp := field.NewPath("spec")
	if va.Spec.Attacher == "" {
		errs = append(errs, field.Required(sp.Child("attacher"), ""))
	} else {
		errs = append(errs, csiDriverName(va.Spec.Attacher, sp.Child("attacher"))...)
	}
	src := va.Spec.Source
	const one = "must specify exactly one of inlineVolumeSpec and persistentVolumeName"
	switch {
	case src.InlineVolumeSpec == nil && src.PersistentVolumeName == nil:
		errs = append(errs, field.Required(sp.Child("source"), one))
	case src.InlineVolumeSpec != nil && src.PersistentVolumeName != nil:
		errs = append(errs, field.Forbidden(sp.Child("source"), one))
	case src.PersistentVolumeName != nil && *src.PersistentVolumeName == "":
		errs = append(errs, field.Required(sp.Child("source", "persistentVolumeName"), "must specify non empty persistentVolumeName"))
	}
	np := sp.Child("nodeName")
	if va.Spec.NodeName == "" {
		errs = append(errs, field.Required(np, ""))
	} else {
		for _, msg := range nameIsDNSSubdomain(va.Spec.NodeName, false) {
			errs = append(errs, field.Invalid(np, va.Spec.NodeName, msg))
		}
	}
	return errs
}

// validateVolumeAttachmentUpdate keeps the spec read-only: the attacher
// acts on it and reports through status.
func validateVolumeAttachmentUpdate(va, old *storagev1.VolumeAttachment) field.ErrorList {
	errs := validateVolumeAttachment(va)
	errs = append(errs, validateMetaUpdate(&va.ObjectMeta, &old.ObjectMeta)...)
	if !equality.Semantic.DeepEqual(va.Spec, old.Spec) {
		errs = append(errs, field.Invalid(field.NewPath("spec"), va.Spec, "field is immutable"))
	}
	return errs
}

package validation

import (
	"fmt"
	"reflect"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var (
	supportedAccessModes   = []string{"ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"}
	supportedReclaimPolicy = []string{"Delete", "Recycle", "Retain"}
	supportedVolumeModes   = []string{"Block", "Filesystem"}
)

// setPointerFields lists the JSON names of the non-nil pointer fields of a
// struct, in declaration order: the members a one-of source has set.
func setPointerFields(v reflect.Value) []string {
	var names []string
	t := v.Type()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		if f.Kind() == reflect.Pointer && !f.IsNil() {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			names = append(names, name)
		}
	}
	return names
}

func validateAccessModes(modes []corev1.PersistentVolumeAccessMode, p *field.Path, requiredMsg string) field.ErrorList {
	var errs field.ErrorList
	if len(modes) == 0 {
		errs = append(errs, field.Required(p, requiredMsg))
	}
	for _, m := range modes {
		if !contains(supportedAccessModes, string(m)) {
			errs = append(errs, field.NotSupported(p, m, supportedAccessModes))
		}
	}
	return errs
}

func validateVolumeMode(m *corev1.PersistentVolumeMode, p *field.Path) field.ErrorList {
	if m != nil && !contains(supportedVolumeModes, string(*m)) {
		return field.ErrorList{field.NotSupported(p, *m, supportedVolumeModes)}
	}
	return nil
}

func validatePersistentVolume(pv *corev1.PersistentVolume) field.ErrorList {
	errs := validateMeta(&pv.ObjectMeta, false, nameIsDNSSubdomain)
	sp := field.NewPath("spec")
	errs = append(errs, validateAccessModes(pv.Spec.AccessModes, sp.Child("accessModes"), "")...)
	if len(pv.Spec.Capacity) == 0 {
		errs = append(errs, field.Required(sp.Child("capacity"), ""))
	} else if _, ok := pv.Spec.Capacity[corev1.ResourceStorage]; !ok || len(pv.Spec.Capacity) > 1 {
		errs = append(errs, field.NotSupported(sp.Child("capacity"), pv.Spec.Capacity, []string{string(corev1.ResourceStorage)}))
	}
	for _, name := range sortedResourceNames(pv.Spec.Capacity) {
		q := pv.Spec.Capacity[name]
		if q.Sign() < 0 {
			errs = append(errs, field.Invalid(sp.Child("capacity").Key(string(name)), q.String(), genericvalidation.IsNegativeErrorMsg))
		}
	}
	if rp := pv.Spec.PersistentVolumeReclaimPolicy; rp != "" && !contains(supportedReclaimPolicy, string(rp)) {
		errs = append(errs, field.NotSupported(sp.Child("persistentVolumeReclaimPolicy"), rp, supportedReclaimPolicy))
	}
	sources := setPointerFields(reflect.ValueOf(pv.Spec.PersistentVolumeSource))
	if len(sources) == 0 {
		errs = append(errs, field.Required(sp, "must specify a volume type"))
	}
	for _, name := range sources[min(1, len(sources)):] {
		errs = append(errs, field.Forbidden(sp.Child(name), "may not specify more than 1 volume type"))
	}
	if pv.Spec.HostPath != nil && pv.Spec.HostPath.Path == "" {
		errs = append(errs, field.Required(sp.Child("hostPath", "path"), ""))
	}
	if pv.Spec.CSI != nil {
		if pv.Spec.CSI.Driver == "" {
			errs = append(errs, field.Required(sp.Child("csi", "driver"), ""))
		}
		if pv.Spec.CSI.VolumeHandle == "" {
			errs = append(errs, field.Required(sp.Child("csi", "volumeHandle"), ""))
		}
	}
	if pv.Spec.NodeAffinity != nil && pv.Spec.NodeAffinity.Required == nil {
		errs = append(errs, field.Required(sp.Child("nodeAffinity", "required"), ""))
	}
	return append(errs, validateVolumeMode(pv.Spec.VolumeMode, sp.Child("volumeMode"))...)
}

func validatePersistentVolumeUpdate(pv, old *corev1.PersistentVolume) field.ErrorList {
	errs := validateMetaUpdate(&pv.ObjectMeta, &old.ObjectMeta)
	errs = append(errs, validatePersistentVolume(pv)...)
	if !equality.Semantic.DeepEqual(pv.Spec.PersistentVolumeSource, old.Spec.PersistentVolumeSource) {
		errs = append(errs, field.Forbidden(field.NewPath("spec", "persistentvolumesource"), "spec.persistentvolumesource is immutable after creation"))
	}
	errs = append(errs, immutable(pv.Spec.VolumeMode, old.Spec.VolumeMode, field.NewPath("volumeMode"))...)
	if old.Spec.NodeAffinity != nil {
		errs = append(errs, immutable(pv.Spec.NodeAffinity, old.Spec.NodeAffinity, field.NewPath("nodeAffinity"))...)
	}
	return errs
}

func validatePersistentVolumeClaim(pvc *corev1.PersistentVolumeClaim) field.ErrorList {
	errs := validateMeta(&pvc.ObjectMeta, true, nameIsDNSSubdomain)
	return append(errs, validatePVCSpec(&pvc.Spec, field.NewPath("spec"))...)
}

func validatePVCSpec(spec *corev1.PersistentVolumeClaimSpec, p *field.Path) field.ErrorList {
	errs := validateAccessModes(spec.AccessModes, p.Child("accessModes"), "at least 1 access mode is required")
	if spec.Selector != nil {
		errs = append(errs, validateLabelSelector(spec.Selector, false, p.Child("selector"))...)
	}
	storage, ok := spec.Resources.Requests[corev1.ResourceStorage]
	if !ok {
		errs = append(errs, field.Required(p.Child("resources").Key(string(corev1.ResourceStorage)), ""))
	} else if storage.Sign() <= 0 {
		errs = append(errs, field.Invalid(p.Child("resources").Key(string(corev1.ResourceStorage)), storage.String(), "must be greater than zero"))
	}
	return append(errs, validateVolumeMode(spec.VolumeMode, p.Child("volumeMode"))...)
}

// validatePersistentVolumeClaimUpdate allows a bound claim to grow and to
// change its volume attributes class; the rest of the spec is fixed, except
// that the binder may fill in volumeName.
func validatePersistentVolumeClaimUpdate(pvc, old *corev1.PersistentVolumeClaim) field.ErrorList {
	errs := validateMetaUpdate(&pvc.ObjectMeta, &old.ObjectMeta)
	errs = append(errs, validatePersistentVolumeClaim(pvc)...)
	cur := pvc.Spec.DeepCopy()
	if old.Spec.VolumeName == "" {
		cur.VolumeName = ""
	}
	// A claim made before a default storage class existed may be given
	// one later (kube-apiserver's retroactive default storage class).
	if old.Spec.StorageClassName == nil && old.Annotations[corev1.BetaStorageClassAnnotation] == "" {
		cur.StorageClassName = nil
	}
	msg := "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims"
	if old.Status.Phase == corev1.ClaimBound {
		cur.Resources.Requests = old.Spec.Resources.Requests
		cur.VolumeAttributesClassName = old.Spec.VolumeAttributesClassName
	}
	if !equality.Semantic.DeepEqual(*cur, old.Spec) {
		errs = append(errs, field.Forbidden(field.NewPath("spec"), fmt.Sprintf("%s\n%v", msg, specDiff(old.Spec, *cur))))
	}
	// Volumes do not shrink; a request may only come back down towards the
	// capacity actually provisioned, to recover from a failed expansion.
	newSize := pvc.Spec.Resources.Requests[corev1.ResourceStorage]
	oldSize := old.Spec.Resources.Requests[corev1.ResourceStorage]
	if old.Status.Phase == corev1.ClaimBound && newSize.Cmp(oldSize) < 0 {
		if capacity := old.Status.Capacity[corev1.ResourceStorage]; newSize.Cmp(capacity) <= 0 {
			errs = append(errs, field.Forbidden(field.NewPath("spec", "resources", "requests", "storage"), "field can not be less than status.capacity"))
		}
	}
	return errs
}

func validateLimitRange(lr *corev1.LimitRange) field.ErrorList {
	errs := validateMeta(&lr.ObjectMeta, true, nameIsDNSSubdomain)
	seen := map[corev1.LimitType]bool{}
	for i, item := range lr.Spec.Limits {
		ip := field.NewPath("spec", "limits").Index(i)
		if seen[item.Type] {
			errs = append(errs, field.Duplicate(ip.Child("type"), item.Type))
		}
		seen[item.Type] = true
		errs = append(errs, validateLimitType(string(item.Type), ip.Child("type"))...)
		for _, part := range []struct {
			name string
			list corev1.ResourceList
		}{{"max", item.Max}, {"min", item.Min}, {"default", item.Default}, {"defaultRequest", item.DefaultRequest}, {"maxLimitRequestRatio", item.MaxLimitRequestRatio}} {
			for _, name := range sortedResourceNames(part.list) {
				q := part.list[name]
				if q.Sign() < 0 {
					errs = append(errs, field.Invalid(ip.Child(part.name).Key(string(name)), q.String(), genericvalidation.IsNegativeErrorMsg))
				}
			}
		}
		errs = append(errs, validateLimitOrder(&item, ip)...)
	}
	return errs
}

func validateLimitType(t string, p *field.Path) field.ErrorList {
	if errs := qualifiedName(t, p); len(errs) > 0 {
		return errs
	}
	if !strings.Contains(t, "/") && t != "Pod" && t != "Container" && t != "PersistentVolumeClaim" {
		return field.ErrorList{field.Invalid(p, t, "must be a standard limit type or fully qualified")}
	}
	return nil
}

// validateLimitOrder checks, per resource, that min <= defaultRequest <=
// default <= max, in kube-apiserver's order and words.
func validateLimitOrder(item *corev1.LimitRangeItem, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := map[corev1.ResourceName]bool{}
	for _, l := range []corev1.ResourceList{item.Max, item.Min, item.Default, item.DefaultRequest, item.MaxLimitRequestRatio} {
		for n := range l {
			names[n] = true
		}
	}
	sorted := make(corev1.ResourceList, len(names))
	for n := range names {
		sorted[n] = resource.Quantity{}
	}
	for _, k := range sortedResourceNames(sorted) {
		min, hasMin := item.Min[k]
		max, hasMax := item.Max[k]
		def, hasDef := item.Default[k]
		req, hasReq := item.DefaultRequest[k]
		key := string(k)
		if hasMin && hasMax && min.Cmp(max) > 0 {
			errs = append(errs, field.Invalid(p.Child("min").Key(key), min.String(), fmt.Sprintf("min value %s is greater than max value %s", min.String(), max.String())))
		}
		if hasReq && hasMin && min.Cmp(req) > 0 {
			errs = append(errs, field.Invalid(p.Child("defaultRequest").Key(key), req.String(), fmt.Sprintf("min value %s is greater than default request value %s", min.String(), req.String())))
		}
		if hasReq && hasMax && req.Cmp(max) > 0 {
			errs = append(errs, field.Invalid(p.Child("defaultRequest").Key(key), req.String(), fmt.Sprintf("default request value %s is greater than max value %s", req.String(), max.String())))
		}
		if hasReq && hasDef && req.Cmp(def) > 0 {
			errs = append(errs, field.Invalid(p.Child("defaultRequest").Key(key), req.String(), fmt.Sprintf("default request value %s is greater than default limit value %s", req.String(), def.String())))
		}
		if hasDef && hasMin && min.Cmp(def) > 0 {
			errs = append(errs, field.Invalid(p.Child("default").Key(key), min.String(), fmt.Sprintf("min value %s is greater than default value %s", min.String(), def.String())))
		}
		if hasDef && hasMax && def.Cmp(max) > 0 {
			errs = append(errs, field.Invalid(p.Child("default").Key(key), max.String(), fmt.Sprintf("default value %s is greater than max value %s", def.String(), max.String())))
		}
		if ratio, ok := item.MaxLimitRequestRatio[k]; ok && ratio.Cmp(*resource.NewQuantity(1, resource.DecimalSI)) < 0 {
			errs = append(errs, field.Invalid(p.Child("maxLimitRequestRatio").Key(key), ratio.String(), fmt.Sprintf("ratio %s is less than 1", ratio.String())))
		}
	}
	return errs
}

// standardQuotaResources are the names without a domain a quota may limit.
var standardQuotaResources = []string{"cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory",
	"requests.storage", "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage",
	"pods", "services", "replicationcontrollers", "resourcequotas", "secrets", "persistentvolumeclaims",
	"configmaps", "services.nodeports", "services.loadbalancers"}

func validateQuotaResourceName(name corev1.ResourceName, p *field.Path) field.ErrorList {
	s := string(name)
	if errs := qualifiedName(s, p); len(errs) > 0 {
		return errs
	}
	if strings.Contains(s, "/") {
		return nil
	}
	var errs field.ErrorList
	if !contains(standardResources, s) && !strings.HasPrefix(s, corev1.ResourceHugePagesPrefix) &&
		!strings.HasPrefix(s, "requests.hugepages-") && !strings.HasPrefix(s, "limits.hugepages-") {
		errs = append(errs, field.Invalid(p, s, "must be a standard resource type or fully qualified"))
	}
	if !contains(standardQuotaResources, s) && !strings.HasPrefix(s, "requests.hugepages-") {
		errs = append(errs, field.Invalid(p, s, "must be a standard resource for quota"))
	}
	return errs
}

func validateResourceQuota(rq *corev1.ResourceQuota) field.ErrorList {
	errs := validateMeta(&rq.ObjectMeta, true, nameIsDNSSubdomain)
	for _, name := range sortedResourceNames(rq.Spec.Hard) {
		errs = append(errs, validateQuotaResourceName(name, field.NewPath("spec", "hard").Key(string(name)))...)
		q := rq.Spec.Hard[name]
		if q.Sign() < 0 {
			errs = append(errs, field.Invalid(field.NewPath("spec", "hard").Key(string(name)), q.String(), genericvalidation.IsNegativeErrorMsg))
		}
	}
	return errs
}

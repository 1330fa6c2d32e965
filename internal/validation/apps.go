package validation

import (
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func replicasOf(r *int32) int32 {
	if r == nil {
		return 1 // the apps/v1 default
	}
	return *r
}

// validateWorkloadSelector checks a required, non-empty selector and
// returns it parsed (nil when it does not parse).
func validateWorkloadSelector(sel *metav1.LabelSelector, kind string, p *field.Path) (labels.Selector, field.ErrorList) {
	var errs field.ErrorList
	if sel == nil {
		errs = append(errs, field.Required(p, ""))
	} else {
		errs = append(errs, validateLabelSelector(sel, false, p)...)
		if len(sel.MatchLabels)+len(sel.MatchExpressions) == 0 {
			errs = append(errs, field.Invalid(p, sel, "empty selector is invalid for "+kind))
		}
	}
	parsed, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return nil, errs
	}
	return parsed, errs
}

// validateReplicaSetTemplate is the template check shared by Deployments
// and ReplicaSets: the selector must match the labels, pods must restart
// always and must not have a deadline.
func validateReplicaSetTemplate(t *corev1.PodTemplateSpec, sel labels.Selector, kind string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if !sel.Empty() && !sel.Matches(labels.Set(t.Labels)) {
		errs = append(errs, field.Invalid(p.Child("metadata", "labels"), t.Labels, "`selector` does not match template `labels`"))
	}
	errs = append(errs, validatePodTemplate(t, p)...)
	if t.Spec.RestartPolicy != corev1.RestartPolicyAlways {
		errs = append(errs, field.NotSupported(p.Child("spec", "restartPolicy"), t.Spec.RestartPolicy, []string{"Always"}))
	}
	if t.Spec.ActiveDeadlineSeconds != nil {
		errs = append(errs, field.Forbidden(p.Child("spec", "activeDeadlineSeconds"), "activeDeadlineSeconds in "+kind+" is not Supported"))
	}
	return errs
}

func validateDeployment(d *appsv1.Deployment) field.ErrorList {
	errs := validateMeta(&d.ObjectMeta, true, nameIsDNSSubdomain)
	return append(errs, validateDeploymentSpec(&d.Spec, field.NewPath("spec"))...)
}

func validateDeploymentSpec(spec *appsv1.DeploymentSpec, p *field.Path) field.ErrorList {
	errs := nonNegative(int64(replicasOf(spec.Replicas)), p.Child("replicas"))
	sel, selErrs := validateWorkloadSelector(spec.Selector, "deployment", p.Child("selector"))
	errs = append(errs, selErrs...)
	if sel == nil {
		errs = append(errs, field.Invalid(p.Child("selector"), spec.Selector, "invalid label selector"))
	} else {
		errs = append(errs, validateReplicaSetTemplate(&spec.Template, sel, "ReplicaSet", p.Child("template"))...)
	}
	errs = append(errs, validateDeploymentStrategy(&spec.Strategy, p.Child("strategy"))...)
	errs = append(errs, nonNegative(int64(spec.MinReadySeconds), p.Child("minReadySeconds"))...)
	if spec.RevisionHistoryLimit != nil {
		errs = append(errs, nonNegative(int64(*spec.RevisionHistoryLimit), p.Child("revisionHistoryLimit"))...)
	}
	if spec.ProgressDeadlineSeconds != nil {
		errs = append(errs, nonNegative(int64(*spec.ProgressDeadlineSeconds), p.Child("progressDeadlineSeconds"))...)
		if *spec.ProgressDeadlineSeconds <= spec.MinReadySeconds {
			errs = append(errs, field.Invalid(p.Child("progressDeadlineSeconds"), spec.ProgressDeadlineSeconds, "must be greater than minReadySeconds"))
		}
	}
	return errs
}

// internalDeploymentStrategy mirrors the reference's internal type, whose
// JSON form its unsupported-strategy message shows.
type internalDeploymentStrategy struct {
	Type          string
	RollingUpdate *internalRollingUpdate
}

type internalRollingUpdate struct {
	MaxUnavailable intstr.IntOrString
	MaxSurge       intstr.IntOrString
}

func validateDeploymentStrategy(s *appsv1.DeploymentStrategy, p *field.Path) field.ErrorList {
	switch s.Type {
	case appsv1.RecreateDeploymentStrategyType:
		if s.RollingUpdate != nil {
			return field.ErrorList{field.Forbidden(p.Child("rollingUpdate"), "may not be specified when strategy `type` is 'Recreate'")}
		}
	case appsv1.RollingUpdateDeploymentStrategyType:
		if s.RollingUpdate == nil {
			return field.ErrorList{field.Required(p.Child("rollingUpdate"), "this should be defaulted and never be nil")}
		}
		return validateRollingUpdateDeployment(s.RollingUpdate, p.Child("rollingUpdate"))
	default:
		bad := internalDeploymentStrategy{Type: string(s.Type)}
		if ru := s.RollingUpdate; ru != nil {
			bad.RollingUpdate = &internalRollingUpdate{MaxUnavailable: intOrZero(ru.MaxUnavailable), MaxSurge: intOrZero(ru.MaxSurge)}
		}
		return field.ErrorList{field.NotSupported(p, bad, []string{"Recreate", "RollingUpdate"})}
	}
	return nil
}

func intOrZero(v *intstr.IntOrString) intstr.IntOrString {
	if v == nil {
		return intstr.FromInt32(0)
	}
	return *v
}

func validateRollingUpdateDeployment(ru *appsv1.RollingUpdateDeployment, p *field.Path) field.ErrorList {
	mu, ms := intOrZero(ru.MaxUnavailable), intOrZero(ru.MaxSurge)
	errs := validateIntOrPercent(mu, p.Child("maxUnavailable"))
	errs = append(errs, validateIntOrPercent(ms, p.Child("maxSurge"))...)
	if intOrPercentValue(mu) == 0 && intOrPercentValue(ms) == 0 {
		errs = append(errs, field.Invalid(p.Child("maxUnavailable"), mu, "may not be 0 when `maxSurge` is 0"))
	}
	return append(errs, notMoreThan100Percent(mu, p.Child("maxUnavailable"))...)
}

func validateIntOrPercent(v intstr.IntOrString, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch v.Type {
	case intstr.String:
		for _, msg := range utilvalidation.IsValidPercent(v.StrVal) {
			errs = append(errs, field.Invalid(p, v, msg))
		}
	case intstr.Int:
		errs = append(errs, nonNegative(int64(v.IntValue()), p)...)
	default:
		errs = append(errs, field.Invalid(p, v, "must be an integer or percentage (e.g '5%%')"))
	}
	return errs
}

func percentValue(v intstr.IntOrString) (int, bool) {
	if v.Type != intstr.String || len(utilvalidation.IsValidPercent(v.StrVal)) != 0 {
		return 0, false
	}
	n, _ := strconv.Atoi(v.StrVal[:len(v.StrVal)-1])
	return n, true
}

func intOrPercentValue(v intstr.IntOrString) int {
	if n, ok := percentValue(v); ok {
		return n
	}
	return v.IntValue()
}

func notMoreThan100Percent(v intstr.IntOrString, p *field.Path) field.ErrorList {
	if n, ok := percentValue(v); ok && n > 100 {
		return field.ErrorList{field.Invalid(p, v, "must not be greater than 100%")}
	}
	return nil
}

func validateDeploymentUpdate(d, old *appsv1.Deployment) field.ErrorList {
	errs := validateMetaUpdate(&d.ObjectMeta, &old.ObjectMeta)
	errs = append(errs, validateDeploymentSpec(&d.Spec, field.NewPath("spec"))...)
	// apps/v1 forbids retargeting a controller at other pods.
	return append(errs, immutable(d.Spec.Selector, old.Spec.Selector, field.NewPath("spec", "selector"))...)
}

func validateReplicaSet(rs *appsv1.ReplicaSet) field.ErrorList {
	errs := validateMeta(&rs.ObjectMeta, true, nameIsDNSSubdomain)
	return append(errs, validateReplicaSetSpec(&rs.Spec, field.NewPath("spec"))...)
}

func validateReplicaSetSpec(spec *appsv1.ReplicaSetSpec, p *field.Path) field.ErrorList {
	errs := nonNegative(int64(replicasOf(spec.Replicas)), p.Child("replicas"))
	errs = append(errs, nonNegative(int64(spec.MinReadySeconds), p.Child("minReadySeconds"))...)
	// The reference says "deployment" here too.
	sel, selErrs := validateWorkloadSelector(spec.Selector, "deployment", p.Child("selector"))
	errs = append(errs, selErrs...)
	if sel == nil {
		return append(errs, field.Invalid(p.Child("selector"), spec.Selector, "invalid label selector"))
	}
	return append(errs, validateReplicaSetTemplate(&spec.Template, sel, "ReplicaSet", p.Child("template"))...)
}

func validateReplicaSetUpdate(rs, old *appsv1.ReplicaSet) field.ErrorList {
	errs := validateMetaUpdate(&rs.ObjectMeta, &old.ObjectMeta)
	errs = append(errs, validateReplicaSetSpec(&rs.Spec, field.NewPath("spec"))...)
	return append(errs, immutable(rs.Spec.Selector, old.Spec.Selector, field.NewPath("spec", "selector"))...)
}

func validateStatefulSet(s *appsv1.StatefulSet) field.ErrorList {
	// Pod names are "<set>-<ordinal>" and double as host names: DNS labels.
	errs := validateMeta(&s.ObjectMeta, true, nameIsDNSLabel)
	return append(errs, validateStatefulSetSpec(&s.Spec, field.NewPath("spec"))...)
}

func validateStatefulSetSpec(spec *appsv1.StatefulSetSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch spec.PodManagementPolicy {
	case "":
		errs = append(errs, field.Required(p.Child("podManagementPolicy"), ""))
	case appsv1.OrderedReadyPodManagement, appsv1.ParallelPodManagement:
	default:
		errs = append(errs, field.Invalid(p.Child("podManagementPolicy"), spec.PodManagementPolicy, "must be 'OrderedReady' or 'Parallel'"))
	}
	us := p.Child("updateStrategy")
	switch spec.UpdateStrategy.Type {
	case "":
		errs = append(errs, field.Required(us, ""))
	case appsv1.OnDeleteStatefulSetStrategyType:
		if spec.UpdateStrategy.RollingUpdate != nil {
			errs = append(errs, field.Invalid(us.Child("rollingUpdate"), spec.UpdateStrategy.RollingUpdate, "only allowed for updateStrategy 'RollingUpdate'"))
		}
	case appsv1.RollingUpdateStatefulSetStrategyType:
		if ru := spec.UpdateStrategy.RollingUpdate; ru != nil {
			rp := us.Child("rollingUpdate")
			if ru.Partition != nil {
				errs = append(errs, nonNegative(int64(*ru.Partition), rp.Child("partition"))...)
			}
			if ru.MaxUnavailable != nil {
				mp := rp.Child("maxUnavailable")
				errs = append(errs, validateIntOrPercent(*ru.MaxUnavailable, mp)...)
				if intOrPercentValue(*ru.MaxUnavailable) == 0 {
					errs = append(errs, field.Invalid(mp, *ru.MaxUnavailable, "cannot be 0"))
				}
				errs = append(errs, notMoreThan100Percent(*ru.MaxUnavailable, mp)...)
			}
		}
	default:
		// The value quoted is kube-apiserver's internal type.
		internal := struct {
			Type          appsv1.StatefulSetUpdateStrategyType
			RollingUpdate *struct {
				Partition      int32
				MaxUnavailable *intstr.IntOrString
			}
		}{Type: spec.UpdateStrategy.Type}
		if ru := spec.UpdateStrategy.RollingUpdate; ru != nil {
			internal.RollingUpdate = &struct {
				Partition      int32
				MaxUnavailable *intstr.IntOrString
			}{MaxUnavailable: ru.MaxUnavailable}
			if ru.Partition != nil {
				internal.RollingUpdate.Partition = *ru.Partition
			}
		}
		errs = append(errs, field.Invalid(us, internal, "must be 'RollingUpdate' or 'OnDelete'"))
	}
	if pol := spec.PersistentVolumeClaimRetentionPolicy; pol != nil {
		pp := p.Child("persistentVolumeClaimRetentionPolicy")
		errs = append(errs, validateRetentionType(pol.WhenDeleted, pp.Child("whenDeleted"))...)
		errs = append(errs, validateRetentionType(pol.WhenScaled, pp.Child("whenScaled"))...)
	}
	errs = append(errs, nonNegative(int64(replicasOf(spec.Replicas)), p.Child("replicas"))...)
	errs = append(errs, nonNegative(int64(spec.MinReadySeconds), p.Child("minReadySeconds"))...)
	if spec.Ordinals != nil {
		errs = append(errs, nonNegative(int64(spec.Ordinals.Start), p.Child("ordinals.start"))...)
	}
	if spec.Selector == nil {
		errs = append(errs, field.Required(p.Child("selector"), ""))
	} else {
		errs = append(errs, validateLabelSelector(spec.Selector, false, p.Child("selector"))...)
		if len(spec.Selector.MatchLabels)+len(spec.Selector.MatchExpressions) == 0 {
			errs = append(errs, field.Invalid(p.Child("selector"), spec.Selector, "empty selector is invalid for statefulset"))
		}
	}
	tp := p.Child("template")
	if sel, err := metav1.LabelSelectorAsSelector(spec.Selector); err != nil {
		errs = append(errs, field.Invalid(p.Child("selector"), spec.Selector, ""))
	} else {
		if !sel.Empty() && !sel.Matches(labels.Set(spec.Template.Labels)) {
			errs = append(errs, field.Invalid(tp.Child("metadata", "labels"), spec.Template.Labels, "`selector` does not match template `labels`"))
		}
		// The reference checks only the template's metadata: volumes may
		// come from volumeClaimTemplates, which the pod spec check would miss.
		errs = append(errs, validatePodTemplateMeta(&spec.Template, tp)...)
	}
	if spec.Template.Spec.RestartPolicy != corev1.RestartPolicyAlways {
		errs = append(errs, field.NotSupported(tp.Child("spec", "restartPolicy"), spec.Template.Spec.RestartPolicy, []string{"Always"}))
	}
	if spec.Template.Spec.ActiveDeadlineSeconds != nil {
		errs = append(errs, field.Forbidden(tp.Child("spec", "activeDeadlineSeconds"), "activeDeadlineSeconds in StatefulSet is not Supported"))
	}
	return errs
}

func validatePodTemplateMeta(t *corev1.PodTemplateSpec, p *field.Path) field.ErrorList {
	errs := validateLabelsAt(t.Labels, p.Child("labels"))
	return append(errs, validateAnnotations(t.Annotations, p.Child("annotations"))...)
}

func validateRetentionType(t appsv1.PersistentVolumeClaimRetentionPolicyType, p *field.Path) field.ErrorList {
	switch t {
	case appsv1.RetainPersistentVolumeClaimRetentionPolicyType, appsv1.DeletePersistentVolumeClaimRetentionPolicyType:
		return nil
	}
	return field.ErrorList{field.NotSupported(p, t, []string{"Retain", "Delete"})}
}

// validateStatefulSetUpdate allows changes to replicas, ordinals, template,
// updateStrategy, the PVC retention policy and minReadySeconds only; the
// name is not re-checked, so sets from before the DNS label rule can still
// be edited.
func validateStatefulSetUpdate(s, old *appsv1.StatefulSet) field.ErrorList {
	errs := validateMetaUpdate(&s.ObjectMeta, &old.ObjectMeta)
	sp := field.NewPath("spec")
	errs = append(errs, validateStatefulSetSpec(&s.Spec, sp)...)
	errs = append(errs, immutable(s.Spec.Selector, old.Spec.Selector, sp.Child("selector"))...)
	errs = append(errs, immutable(s.Spec.VolumeClaimTemplates, old.Spec.VolumeClaimTemplates, sp.Child("volumeClaimTemplates"))...)
	errs = append(errs, immutable(s.Spec.ServiceName, old.Spec.ServiceName, sp.Child("serviceName"))...)
	return append(errs, immutable(s.Spec.PodManagementPolicy, old.Spec.PodManagementPolicy, sp.Child("podManagementPolicy"))...)
}

func validateDaemonSet(ds *appsv1.DaemonSet) field.ErrorList {
	errs := validateMeta(&ds.ObjectMeta, true, nameIsDNSSubdomain)
	return append(errs, validateDaemonSetSpec(&ds.Spec, field.NewPath("spec"))...)
}

func validateDaemonSetSpec(spec *appsv1.DaemonSetSpec, p *field.Path) field.ErrorList {
	errs := validateLabelSelector(spec.Selector, false, p.Child("selector"))
	if sel, err := metav1.LabelSelectorAsSelector(spec.Selector); err == nil && !sel.Matches(labels.Set(spec.Template.Labels)) {
		errs = append(errs, field.Invalid(p.Child("template", "metadata", "labels"), spec.Template.Labels, "`selector` does not match template `labels`"))
	}
	if spec.Selector != nil && len(spec.Selector.MatchLabels)+len(spec.Selector.MatchExpressions) == 0 {
		errs = append(errs, field.Invalid(p.Child("selector"), spec.Selector, "empty selector is invalid for daemonset"))
	}
	tp := p.Child("template")
	errs = append(errs, validatePodTemplate(&spec.Template, tp)...)
	if spec.Template.Spec.RestartPolicy != corev1.RestartPolicyAlways {
		errs = append(errs, field.NotSupported(tp.Child("spec", "restartPolicy"), spec.Template.Spec.RestartPolicy, []string{"Always"}))
	}
	if spec.Template.Spec.ActiveDeadlineSeconds != nil {
		errs = append(errs, field.Forbidden(tp.Child("spec", "activeDeadlineSeconds"), "activeDeadlineSeconds in DaemonSet is not Supported"))
	}
	errs = append(errs, nonNegative(int64(spec.MinReadySeconds), p.Child("minReadySeconds"))...)
	errs = append(errs, validateDaemonSetUpdateStrategy(&spec.UpdateStrategy, p.Child("updateStrategy"))...)
	if spec.RevisionHistoryLimit != nil {
		errs = append(errs, nonNegative(int64(*spec.RevisionHistoryLimit), p.Child("revisionHistoryLimit"))...)
	}
	return errs
}

// internalDaemonSetStrategy mirrors the reference's internal type for its
// unsupported-strategy message.
type internalDaemonSetStrategy struct {
	Type          string
	RollingUpdate *internalRollingUpdate
}

func validateDaemonSetUpdateStrategy(s *appsv1.DaemonSetUpdateStrategy, p *field.Path) field.ErrorList {
	switch s.Type {
	case appsv1.OnDeleteDaemonSetStrategyType:
		return nil
	case appsv1.RollingUpdateDaemonSetStrategyType:
		if s.RollingUpdate == nil {
			return field.ErrorList{field.Required(p.Child("rollingUpdate"), "")}
		}
		rp := p.Child("rollingUpdate")
		mu, ms := intOrZero(s.RollingUpdate.MaxUnavailable), intOrZero(s.RollingUpdate.MaxSurge)
		errs := validateIntOrPercent(mu, rp.Child("maxUnavailable"))
		errs = append(errs, validateIntOrPercent(ms, rp.Child("maxSurge"))...)
		errs = append(errs, notMoreThan100Percent(mu, rp.Child("maxUnavailable"))...)
		errs = append(errs, notMoreThan100Percent(ms, rp.Child("maxSurge"))...)
		hasU, hasS := intOrPercentValue(mu) != 0, intOrPercentValue(ms) != 0
		switch {
		case hasU && hasS:
			errs = append(errs, field.Invalid(rp.Child("maxSurge"), ms, "may not be set when maxUnavailable is non-zero"))
		case !hasU && !hasS:
			errs = append(errs, field.Required(rp.Child("maxUnavailable"), "cannot be 0 when maxSurge is 0"))
		}
		return errs
	default:
		bad := internalDaemonSetStrategy{Type: string(s.Type)}
		if ru := s.RollingUpdate; ru != nil {
			bad.RollingUpdate = &internalRollingUpdate{MaxUnavailable: intOrZero(ru.MaxUnavailable), MaxSurge: intOrZero(ru.MaxSurge)}
		}
		return field.ErrorList{field.NotSupported(p, bad, []string{"RollingUpdate", "OnDelete"})}
	}
}

func validateDaemonSetUpdate(ds, old *appsv1.DaemonSet) field.ErrorList {
	errs := validateMetaUpdate(&ds.ObjectMeta, &old.ObjectMeta)
	errs = append(errs, immutable(ds.Spec.Selector, old.Spec.Selector, field.NewPath("spec", "selector"))...)
	return append(errs, validateDaemonSetSpec(&ds.Spec, field.NewPath("spec"))...)
}

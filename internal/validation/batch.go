package validation

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func validateJob(j *batchv1.Job) field.ErrorList {
	errs := validateMeta(&j.ObjectMeta, true, nameIsDNSSubdomain)
	errs = append(errs, validateGeneratedJobSelector(j)...)
	errs = append(errs, validateJobSpecWithSelector(&j.Spec, field.NewPath("spec"))...)
	return append(errs, validateIndexedJobName(j)...)
}

// validateGeneratedJobSelector checks, unless the selector is manual, that
// the server's generated labels and selector are in place.
func validateGeneratedJobSelector(j *batchv1.Job) field.ErrorList {
	if j.Spec.ManualSelector != nil && *j.Spec.ManualSelector || j.Spec.Selector == nil {
		return nil
	}
	var errs field.ErrorList
	if j.UID == "" {
		errs = append(errs, field.Required(field.NewPath("metadata", "uid"), ""))
	}
	tp := field.NewPath("spec", "template", "metadata")
	want := []struct{ key, value string }{
		{"controller-uid", string(j.UID)},
		{"job-name", j.Name},
		{batchv1.ControllerUidLabel, string(j.UID)},
		{batchv1.JobNameLabel, j.Name},
	}
	expected := labels.Set{}
	for _, w := range want {
		expected[w.key] = w.value
		if got, ok := j.Spec.Template.Labels[w.key]; !ok {
			errs = append(errs, field.Required(tp.Child("labels").Key(w.key), "must be '"+w.value+"'"))
		} else if got != w.value {
			errs = append(errs, field.Invalid(tp.Child("labels").Key(w.key), j.Spec.Template.Labels, "must be '"+w.value+"'"))
		}
	}
	if sel, err := metav1.LabelSelectorAsSelector(j.Spec.Selector); err == nil && !sel.Matches(expected) {
		errs = append(errs, field.Invalid(field.NewPath("spec", "selector"), j.Spec.Selector, "`selector` not auto-generated"))
	}
	return errs
}

// validateIndexedJobName checks that an indexed job's last pod host name
// is a DNS label.
func validateIndexedJobName(j *batchv1.Job) field.ErrorList {
	s := j.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion || s.Completions == nil || *s.Completions <= 0 {
		return nil
	}
	last := fmt.Sprintf("%s-%d", j.Name, *s.Completions-1)
	if len(utilvalidation.IsDNS1123Label(last)) > 0 {
		return field.ErrorList{field.Invalid(field.NewPath("metadata", "name"), j.Name, "will not able to create pod with invalid DNS label: "+last)}
	}
	return nil
}

func validateJobSpecWithSelector(s *batchv1.JobSpec, p *field.Path) field.ErrorList {
	errs := validateJobSpec(s, p)
	if s.Selector == nil {
		errs = append(errs, field.Required(p.Child("selector"), ""))
	} else {
		errs = append(errs, validateLabelSelector(s.Selector, false, p.Child("selector"))...)
	}
	if sel, err := metav1.LabelSelectorAsSelector(s.Selector); err == nil && !sel.Matches(labels.Set(s.Template.Labels)) {
		errs = append(errs, field.Invalid(p.Child("template", "metadata", "labels"), s.Template.Labels, "`selector` does not match template `labels`"))
	}
	return errs
}

const (
	maxParallelismIndexed  = 100000
	maxFailedIndexesLimit  = 100000
	completionsSoftLimit   = 100000
	parallelismLimitPerIdx = 10000
)

func validateJobSpec(s *batchv1.JobSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	optNonNegative := func(v *int32, name string) {
		if v != nil {
			errs = append(errs, nonNegative(int64(*v), p.Child(name))...)
		}
	}
	optNonNegative(s.Parallelism, "parallelism")
	optNonNegative(s.Completions, "completions")
	if s.ActiveDeadlineSeconds != nil {
		errs = append(errs, nonNegative(*s.ActiveDeadlineSeconds, p.Child("activeDeadlineSeconds"))...)
	}
	optNonNegative(s.BackoffLimit, "backoffLimit")
	optNonNegative(s.TTLSecondsAfterFinished, "ttlSecondsAfterFinished")
	optNonNegative(s.BackoffLimitPerIndex, "backoffLimitPerIndex")
	optNonNegative(s.MaxFailedIndexes, "maxFailedIndexes")
	if s.MaxFailedIndexes != nil && s.BackoffLimitPerIndex == nil {
		errs = append(errs, field.Required(p.Child("backoffLimitPerIndex"), "when maxFailedIndexes is specified"))
	}
	indexed := s.CompletionMode != nil && *s.CompletionMode == batchv1.IndexedCompletion
	if s.CompletionMode != nil {
		if *s.CompletionMode != batchv1.NonIndexedCompletion && !indexed {
			errs = append(errs, field.NotSupported(p.Child("completionMode"), *s.CompletionMode, []string{string(batchv1.NonIndexedCompletion), string(batchv1.IndexedCompletion)}))
		}
		if indexed {
			if s.Completions == nil {
				errs = append(errs, field.Required(p.Child("completions"), "when completion mode is Indexed"))
			}
			if s.Parallelism != nil && *s.Parallelism > maxParallelismIndexed {
				errs = append(errs, field.Invalid(p.Child("parallelism"), *s.Parallelism, fmt.Sprintf("must be less than or equal to %d when completion mode is Indexed", maxParallelismIndexed)))
			}
			if s.Completions != nil && s.MaxFailedIndexes != nil && *s.MaxFailedIndexes > *s.Completions {
				errs = append(errs, field.Invalid(p.Child("maxFailedIndexes"), *s.MaxFailedIndexes, "must be less than or equal to completions"))
			}
			if s.MaxFailedIndexes != nil && *s.MaxFailedIndexes > maxFailedIndexesLimit {
				errs = append(errs, field.Invalid(p.Child("maxFailedIndexes"), *s.MaxFailedIndexes, fmt.Sprintf("must be less than or equal to %d", maxFailedIndexesLimit)))
			}
		}
	}
	if !indexed {
		if s.BackoffLimitPerIndex != nil {
			errs = append(errs, field.Invalid(p.Child("backoffLimitPerIndex"), *s.BackoffLimitPerIndex, "requires indexed completion mode"))
		}
		if s.MaxFailedIndexes != nil {
			errs = append(errs, field.Invalid(p.Child("maxFailedIndexes"), *s.MaxFailedIndexes, "requires indexed completion mode"))
		}
	}
	if s.SuccessPolicy != nil && !indexed {
		errs = append(errs, field.Invalid(p.Child("successPolicy"), *s.SuccessPolicy, "requires indexed completion mode"))
	}
	if rp := s.PodReplacementPolicy; rp != nil {
		rpp := p.Child("podReplacementPolicy")
		switch {
		case s.PodFailurePolicy != nil && *rp != batchv1.Failed:
			errs = append(errs, field.NotSupported(rpp, *rp, []string{string(batchv1.Failed)}))
		case *rp != batchv1.Failed && *rp != batchv1.TerminatingOrFailed:
			errs = append(errs, field.NotSupported(rpp, *rp, []string{string(batchv1.Failed), string(batchv1.TerminatingOrFailed)}))
		}
	}
	errs = append(errs, validatePodTemplate(&s.Template, p.Child("template"))...)
	// Pods of a job run to completion: Always (the pod default) is refused.
	rpp := p.Child("template", "spec", "restartPolicy")
	switch rp := s.Template.Spec.RestartPolicy; {
	case rp == corev1.RestartPolicyAlways || rp == "":
		errs = append(errs, field.Required(rpp, `valid values: "OnFailure", "Never"`))
	case rp != corev1.RestartPolicyOnFailure && rp != corev1.RestartPolicyNever:
		errs = append(errs, field.NotSupported(rpp, rp, []string{string(corev1.RestartPolicyOnFailure), string(corev1.RestartPolicyNever)}))
	case s.PodFailurePolicy != nil && rp != corev1.RestartPolicyNever:
		errs = append(errs, field.Invalid(rpp, rp, `only "Never" is supported when podFailurePolicy is specified`))
	}
	return errs
}

func validateJobUpdate(j, old *batchv1.Job) field.ErrorList {
	errs := validateMetaUpdate(&j.ObjectMeta, &old.ObjectMeta)
	p := field.NewPath("spec")
	s, o := &j.Spec, &old.Spec
	errs = append(errs, validateJobSpecWithSelector(s, p)...)
	indexed := s.CompletionMode != nil && *s.CompletionMode == batchv1.IndexedCompletion
	switch {
	case !indexed:
		errs = append(errs, immutable(s.Completions, o.Completions, p.Child("completions"))...)
	case s.Completions != nil && (o.Completions == nil || *s.Completions != *o.Completions):
		if s.Parallelism == nil || *s.Completions != *s.Parallelism {
			errs = append(errs, field.Invalid(p.Child("completions"), s.Completions, "can only be modified in tandem with spec.parallelism"))
		}
	}
	errs = append(errs, immutable(s.Selector, o.Selector, p.Child("selector"))...)
	errs = append(errs, validateJobTemplateUpdate(s, o, old.Status.StartTime == nil, p)...)
	errs = append(errs, immutable(s.CompletionMode, o.CompletionMode, p.Child("completionMode"))...)
	errs = append(errs, immutable(s.PodFailurePolicy, o.PodFailurePolicy, p.Child("podFailurePolicy"))...)
	errs = append(errs, immutable(s.BackoffLimitPerIndex, o.BackoffLimitPerIndex, p.Child("backoffLimitPerIndex"))...)
	errs = append(errs, immutable(s.ManagedBy, o.ManagedBy, p.Child("managedBy"))...)
	errs = append(errs, immutable(s.SuccessPolicy, o.SuccessPolicy, p.Child("successPolicy"))...)
	return append(errs, validateIndexedJobName(j)...)
}

// validateJobTemplateUpdate keeps a job's pod template as it is, except
// that a suspended job that never started may change where its pods run.
func validateJobTemplateUpdate(s, o *batchv1.JobSpec, notStarted bool, p *field.Path) field.ErrorList {
	oldTemplate := &o.Template
	suspended := o.Suspend != nil && *o.Suspend
	if suspended && notStarted {
		t := o.Template.DeepCopy()
		switch {
		case s.Template.Spec.Affinity == nil && t.Spec.Affinity != nil:
			t.Spec.Affinity.NodeAffinity = nil
			if *t.Spec.Affinity == (corev1.Affinity{}) {
				t.Spec.Affinity = nil
			}
		case s.Template.Spec.Affinity != nil && t.Spec.Affinity == nil:
			t.Spec.Affinity = &corev1.Affinity{NodeAffinity: s.Template.Spec.Affinity.NodeAffinity}
		case s.Template.Spec.Affinity != nil:
			t.Spec.Affinity.NodeAffinity = s.Template.Spec.Affinity.NodeAffinity
		}
		t.Spec.NodeSelector = s.Template.Spec.NodeSelector
		t.Spec.Tolerations = s.Template.Spec.Tolerations
		t.Annotations = s.Template.Annotations
		t.Labels = s.Template.Labels
		t.Spec.SchedulingGates = s.Template.Spec.SchedulingGates
		oldTemplate = t
	}
	if equality.Semantic.DeepEqual(&s.Template, oldTemplate) {
		return nil
	}
	return field.ErrorList{field.Invalid(p.Child("template"), internalTemplate{&s.Template}, "field is immutable")}
}

func validateJobStatusUpdate(j, old *batchv1.Job) field.ErrorList {
	errs := validateMetaUpdate(&j.ObjectMeta, &old.ObjectMeta)
	p := field.NewPath("status")
	st := j.Status
	errs = append(errs, nonNegative(int64(st.Active), p.Child("active"))...)
	errs = append(errs, nonNegative(int64(st.Succeeded), p.Child("succeeded"))...)
	errs = append(errs, nonNegative(int64(st.Failed), p.Child("failed"))...)
	if st.Ready != nil {
		errs = append(errs, nonNegative(int64(*st.Ready), p.Child("ready"))...)
	}
	if st.Terminating != nil {
		errs = append(errs, nonNegative(int64(*st.Terminating), p.Child("terminating"))...)
	}
	if ready := st.Ready; ready != nil && (old.Status.Ready == nil || *ready != *old.Status.Ready || st.Active != old.Status.Active) && *ready > st.Active {
		errs = append(errs, field.Invalid(p.Child("ready"), *ready, "cannot set more ready pods than active"))
	}
	if st.Failed < old.Status.Failed {
		errs = append(errs, field.Invalid(p.Child("failed"), st.Failed, "cannot decrease the failed counter"))
	}
	indexed := j.Spec.CompletionMode != nil && *j.Spec.CompletionMode == batchv1.IndexedCompletion
	equalCP := j.Spec.Completions != nil && j.Spec.Parallelism != nil && *j.Spec.Completions == *j.Spec.Parallelism ||
		j.Spec.Completions == nil && j.Spec.Parallelism == nil
	if (!indexed || !equalCP) && st.Succeeded < old.Status.Succeeded {
		errs = append(errs, field.Invalid(p.Child("succeeded"), st.Succeeded, "cannot decrease the succeeded counter"))
	}
	return errs
}

func validateCronJob(cj *batchv1.CronJob) field.ErrorList {
	errs := validateMeta(&cj.ObjectMeta, true, nameIsDNSSubdomain)
	errs = append(errs, validateCronJobSpec(&cj.Spec, nil, field.NewPath("spec"))...)
	// The controller names its jobs <cronjob>-<11 characters>.
	if len(cj.Name) > utilvalidation.DNS1035LabelMaxLength-11 {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), cj.Name, "must be no more than 52 characters"))
	}
	return errs
}

func validateCronJobUpdate(cj, old *batchv1.CronJob) field.ErrorList {
	errs := validateMetaUpdate(&cj.ObjectMeta, &old.ObjectMeta)
	return append(errs, validateCronJobSpec(&cj.Spec, &old.Spec, field.NewPath("spec"))...)
}

func validateCronJobSpec(s, old *batchv1.CronJobSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.Schedule == "" {
		errs = append(errs, field.Required(p.Child("schedule"), ""))
	} else {
		allowTZ := old != nil && strings.Contains(old.Schedule, "TZ")
		sp := p.Child("schedule")
		if err := parseCronSchedule(s.Schedule); err != nil {
			errs = append(errs, field.Invalid(sp, s.Schedule, err.Error()))
		}
		switch {
		case allowTZ && strings.Contains(s.Schedule, "TZ") && s.TimeZone != nil:
			errs = append(errs, field.Invalid(sp, s.Schedule, "cannot use both timeZone field and TZ or CRON_TZ in schedule"))
		case !allowTZ && strings.Contains(s.Schedule, "TZ"):
			errs = append(errs, field.Invalid(sp, s.Schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"))
		}
	}
	if s.StartingDeadlineSeconds != nil {
		errs = append(errs, nonNegative(*s.StartingDeadlineSeconds, p.Child("startingDeadlineSeconds"))...)
	}
	if old == nil || !equalStringPtr(old.TimeZone, s.TimeZone) {
		errs = append(errs, validateTimeZone(s.TimeZone, p.Child("timeZone"))...)
	}
	cp := p.Child("concurrencyPolicy")
	switch s.ConcurrencyPolicy {
	case batchv1.AllowConcurrent, batchv1.ForbidConcurrent, batchv1.ReplaceConcurrent:
	case "":
		errs = append(errs, field.Required(cp, ""))
	default:
		errs = append(errs, field.NotSupported(cp, s.ConcurrencyPolicy, []string{string(batchv1.AllowConcurrent), string(batchv1.ForbidConcurrent), string(batchv1.ReplaceConcurrent)}))
	}
	jp := p.Child("jobTemplate")
	errs = append(errs, validateJobSpec(&s.JobTemplate.Spec, jp.Child("spec"))...)
	if s.JobTemplate.Spec.Selector != nil {
		errs = append(errs, field.Invalid(jp.Child("spec", "selector"), s.JobTemplate.Spec.Selector, "`selector` will be auto-generated"))
	}
	if m := s.JobTemplate.Spec.ManualSelector; m != nil && *m {
		errs = append(errs, field.NotSupported(jp.Child("spec", "manualSelector"), m, []string{"nil", "false"}))
	}
	if s.SuccessfulJobsHistoryLimit != nil {
		errs = append(errs, nonNegative(int64(*s.SuccessfulJobsHistoryLimit), p.Child("successfulJobsHistoryLimit"))...)
	}
	if s.FailedJobsHistoryLimit != nil {
		errs = append(errs, nonNegative(int64(*s.FailedJobsHistoryLimit), p.Child("failedJobsHistoryLimit"))...)
	}
	return errs
}

func equalStringPtr(a, b *string) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// timeZonePart is one component of an IANA zone name, with the digits and
// '+' of legacy names tolerated.
var timeZonePart = regexp.MustCompile(`^[A-Za-z\.\-_0-9+]{1,14}$`)

func validateTimeZone(tz *string, p *field.Path) field.ErrorList {
	if tz == nil {
		return nil
	}
	if *tz == "" {
		return field.ErrorList{field.Invalid(p, tz, "timeZone must be nil or non-empty string")}
	}
	for _, part := range strings.Split(*tz, "/") {
		if part == "." || part == ".." || strings.HasPrefix(part, "-") || !timeZonePart.MatchString(part) {
			return field.ErrorList{field.Invalid(p, tz, "unknown time zone "+*tz)}
		}
	}
	var errs field.ErrorList
	if strings.EqualFold(*tz, "Local") {
		errs = append(errs, field.Invalid(p, tz, "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"))
	}
	if _, err := time.LoadLocation(*tz); err != nil {
		errs = append(errs, field.Invalid(p, tz, err.Error()))
	}
	return errs
}

// cronField is the range of one field of a standard cron schedule.
type cronField struct {
	min, max int
	names    map[string]int
}

var cronFields = []cronField{
	{0, 59, nil},
	{0, 23, nil},
	{1, 31, nil},
	{1, 12, map[string]int{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12}},
	{0, 6, map[string]int{"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6}},
}

var cronDescriptors = map[string]bool{
	"@yearly": true, "@annually": true, "@monthly": true, "@weekly": true, "@daily": true, "@midnight": true, "@hourly": true,
}

// parseCronSchedule checks a standard five-field schedule (with an
// optional TZ= or CRON_TZ= prefix, and the @ descriptors), with the error
// texts of the cron library kube-apiserver parses schedules with.
func parseCronSchedule(spec string) error {
	if spec == "" {
		return fmt.Errorf("empty spec string")
	}
	if strings.HasPrefix(spec, "TZ=") || strings.HasPrefix(spec, "CRON_TZ=") {
		i := strings.Index(spec, " ")
		eq := strings.Index(spec, "=")
		if i < 0 {
			i = len(spec)
		}
		if _, err := time.LoadLocation(spec[eq+1 : i]); err != nil {
			return fmt.Errorf("provided bad location %s: %v", spec[eq+1:i], err)
		}
		spec = strings.TrimSpace(spec[i:])
	}
	if strings.HasPrefix(spec, "@") {
		if cronDescriptors[spec] || strings.HasPrefix(spec, "@every ") {
			if strings.HasPrefix(spec, "@every ") {
				if _, err := time.ParseDuration(spec[len("@every "):]); err != nil {
					return fmt.Errorf("failed to parse duration %s: %s", spec, err)
				}
			}
			return nil
		}
		return fmt.Errorf("unrecognized descriptor: %s", spec)
	}
	parts := strings.Fields(spec)
	if len(parts) != len(cronFields) {
		return fmt.Errorf("expected exactly %d fields, found %d: %s", len(cronFields), len(parts), fmt.Sprint(parts))
	}
	for i, part := range parts {
		for _, expr := range strings.Split(part, ",") {
			if err := parseCronRange(expr, cronFields[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

func parseCronRange(expr string, f cronField) error {
	rangeAndStep := strings.Split(expr, "/")
	lowAndHigh := strings.Split(rangeAndStep[0], "-")
	singleDigit := len(lowAndHigh) == 1
	var start, end int
	var err error
	if lowAndHigh[0] == "*" || lowAndHigh[0] == "?" {
		start, end = f.min, f.max
	} else {
		if start, err = cronValue(lowAndHigh[0], f.names); err != nil {
			return err
		}
		switch len(lowAndHigh) {
		case 1:
			end = start
		case 2:
			if end, err = cronValue(lowAndHigh[1], f.names); err != nil {
				return err
			}
		default:
			return fmt.Errorf("too many hyphens: %s", expr)
		}
	}
	step := 1
	switch len(rangeAndStep) {
	case 1:
	case 2:
		if step, err = cronNumber(rangeAndStep[1]); err != nil {
			return err
		}
		if singleDigit {
			end = f.max
		}
	default:
		return fmt.Errorf("too many slashes: %s", expr)
	}
	switch {
	case start < f.min:
		return fmt.Errorf("beginning of range (%d) below minimum (%d): %s", start, f.min, expr)
	case end > f.max:
		return fmt.Errorf("end of range (%d) above maximum (%d): %s", end, f.max, expr)
	case start > end:
		return fmt.Errorf("beginning of range (%d) beyond end of range (%d): %s", start, end, expr)
	case step == 0:
		return fmt.Errorf("step of range should be a positive number: %s", expr)
	}
	return nil
}

func cronValue(s string, names map[string]int) (int, error) {
	if n, ok := names[strings.ToLower(s)]; ok {
		return n, nil
	}
	return cronNumber(s)
}

func cronNumber(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("failed to parse int from %s: %s", s, err)
	}
	if n < 0 {
		return 0, fmt.Errorf("negative number (%d) not allowed: %s", n, s)
	}
	return n, nil
}

// workloadStatusUpdate validates writes through /status of Jobs, CronJobs
// and ReplicationControllers; ok is false for other kinds.
func workloadStatusUpdate(obj, old runtime.Object) (errs field.ErrorList, ok bool) {
	switch o := obj.(type) {
	case *batchv1.Job:
		return validateJobStatusUpdate(o, old.(*batchv1.Job)), true
	case *batchv1.CronJob:
		return validateMetaUpdate(&o.ObjectMeta, &old.(*batchv1.CronJob).ObjectMeta), true
	case *corev1.ReplicationController:
		return validateReplicationControllerStatusUpdate(o, old.(*corev1.ReplicationController)), true
	}
	return nil, false
}

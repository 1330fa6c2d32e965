package printers

import (
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
)

// batchPrinters covers batch/v1.
func batchPrinters() []registration {
	return []registration{
		cellsPrinter(jobColumns, jobCells),
		cellsPrinter(cronJobColumns, cronJobCells),
	}
}

var jobColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	column("Status", "string", "The state of the job."),
	column("Completions", "string", batchv1.JobStatus{}.SwaggerDoc()["succeeded"]),
	column("Duration", "string", "How long the job ran, or has been running."),
	ageColumn(),
	containersColumn(),
	imagesColumn(),
	wideColumn("Selector", "string", batchv1.JobSpec{}.SwaggerDoc()["selector"]),
}

func jobCells(job *batchv1.Job, now time.Time) []any {
	var completions string
	switch parallelism := job.Spec.Parallelism; {
	case job.Spec.Completions != nil:
		completions = fmt.Sprintf("%d/%d", job.Status.Succeeded, *job.Spec.Completions)
	case parallelism != nil && *parallelism > 1:
		completions = fmt.Sprintf("%d/1 of %d", job.Status.Succeeded, *parallelism)
	default:
		completions = fmt.Sprintf("%d/1", job.Status.Succeeded)
	}

	var ran string
	switch start, end := job.Status.StartTime, job.Status.CompletionTime; {
	case start == nil:
	case end == nil:
		ran = duration.HumanDuration(now.Sub(start.Time))
	default:
		ran = duration.HumanDuration(end.Sub(start.Time))
	}

	names, images := containerCells(job.Spec.Template.Spec.Containers)
	return []any{
		job.Name, jobStatus(job), completions, ran, since(job.CreationTimestamp, now),
		names, images, metav1.FormatLabelSelector(job.Spec.Selector),
	}
}

// jobStatus picks the most telling condition: finished beats being deleted
// beats suspended beats about to fail.
func jobStatus(job *batchv1.Job) string {
	switch {
	case jobCondition(job, batchv1.JobComplete):
		return "Complete"
	case jobCondition(job, batchv1.JobFailed):
		return "Failed"
	case job.DeletionTimestamp != nil:
		return "Terminating"
	case jobCondition(job, batchv1.JobSuspended):
		return "Suspended"
	case jobCondition(job, batchv1.JobFailureTarget):
		return "FailureTarget"
	}
	return "Running"
}

func jobCondition(job *batchv1.Job, typ batchv1.JobConditionType) bool {
	for _, c := range job.Status.Conditions {
		if c.Type == typ {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

var cronJobColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	column("Schedule", "string", batchv1.CronJobSpec{}.SwaggerDoc()["schedule"]),
	column("Timezone", "string", batchv1.CronJobSpec{}.SwaggerDoc()["timeZone"]),
	column("Suspend", "boolean", batchv1.CronJobSpec{}.SwaggerDoc()["suspend"]),
	column("Active", "integer", batchv1.CronJobStatus{}.SwaggerDoc()["active"]),
	column("Last Schedule", "string", batchv1.CronJobStatus{}.SwaggerDoc()["lastScheduleTime"]),
	ageColumn(),
	containersColumn(),
	imagesColumn(),
	wideColumn("Selector", "string", batchv1.JobSpec{}.SwaggerDoc()["selector"]),
}

func cronJobCells(cj *batchv1.CronJob, now time.Time) []any {
	last := none
	if cj.Status.LastScheduleTime != nil {
		last = since(*cj.Status.LastScheduleTime, now)
	}
	tmpl := cj.Spec.JobTemplate.Spec
	names, images := containerCells(tmpl.Template.Spec.Containers)
	return []any{
		cj.Name, cj.Spec.Schedule, stringOr(cj.Spec.TimeZone, none), boolText(cj.Spec.Suspend),
		int64(len(cj.Status.Active)), last, since(cj.CreationTimestamp, now),
		names, images, metav1.FormatLabelSelector(tmpl.Selector),
	}
}

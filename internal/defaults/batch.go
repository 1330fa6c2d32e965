package defaults

import (
	"math"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// applyWorkloads sets the defaults of batch/v1 Jobs and CronJobs, core
// PodTemplates and ReplicationControllers; ok is false for other types.
func applyWorkloads(obj runtime.Object) (ok bool) {
	switch o := obj.(type) {
	case *batchv1.Job:
		if o != nil {
			job(o)
		}
	case *batchv1.CronJob:
		if o != nil {
			cronJob(o)
		}
	case *corev1.PodTemplate:
		if o != nil {
			podSpec(&o.Template.Spec)
		}
	case *corev1.ReplicationController:
		if o != nil {
			replicationController(o)
		}
	case *appsv1.ControllerRevision:
	default:
		return false
	}
	return true
}

func job(j *batchv1.Job) {
	s := &j.Spec
	// A job that says neither runs one pod to one completion.
	if s.Completions == nil && s.Parallelism == nil {
		s.Completions = ptr(int32(1))
	}
	if s.Parallelism == nil {
		s.Parallelism = ptr(int32(1))
	}
	if s.BackoffLimit == nil {
		if s.BackoffLimitPerIndex != nil {
			s.BackoffLimit = ptr(int32(math.MaxInt32))
		} else {
			s.BackoffLimit = ptr(int32(6))
		}
	}
	if s.Template.Labels != nil && len(j.Labels) == 0 {
		j.Labels = s.Template.Labels
	}
	if s.CompletionMode == nil {
		s.CompletionMode = ptr(batchv1.NonIndexedCompletion)
	}
	if s.Suspend == nil {
		s.Suspend = ptr(false)
	}
	if s.PodReplacementPolicy == nil {
		if s.PodFailurePolicy != nil {
			s.PodReplacementPolicy = ptr(batchv1.Failed)
		} else {
			s.PodReplacementPolicy = ptr(batchv1.TerminatingOrFailed)
		}
	}
	if s.ManualSelector == nil {
		s.ManualSelector = ptr(false)
	}
	jobSpecNested(s)
}

// jobSpecNested defaults what a job spec holds, for Jobs and for the job
// templates of CronJobs alike.
func jobSpecNested(s *batchv1.JobSpec) {
	if pfp := s.PodFailurePolicy; pfp != nil {
		for i := range pfp.Rules {
			for k := range pfp.Rules[i].OnPodConditions {
				if pfp.Rules[i].OnPodConditions[k].Status == "" {
					pfp.Rules[i].OnPodConditions[k].Status = corev1.ConditionTrue
				}
			}
		}
	}
	podSpec(&s.Template.Spec)
}

func cronJob(cj *batchv1.CronJob) {
	s := &cj.Spec
	if s.ConcurrencyPolicy == "" {
		s.ConcurrencyPolicy = batchv1.AllowConcurrent
	}
	if s.Suspend == nil {
		s.Suspend = ptr(false)
	}
	if s.SuccessfulJobsHistoryLimit == nil {
		s.SuccessfulJobsHistoryLimit = ptr(int32(3))
	}
	if s.FailedJobsHistoryLimit == nil {
		s.FailedJobsHistoryLimit = ptr(int32(1))
	}
	jobSpecNested(&s.JobTemplate.Spec)
}

func replicationController(rc *corev1.ReplicationController) {
	s := &rc.Spec
	if t := s.Template; t != nil {
		// An RC without a selector selects the pods its template makes.
		if len(s.Selector) == 0 {
			s.Selector = t.Labels
		}
		if len(rc.Labels) == 0 {
			rc.Labels = t.Labels
		}
		podSpec(&t.Spec)
	}
	if s.Replicas == nil {
		s.Replicas = ptr(int32(1))
	}
}

package registry

import (
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// batchResources are the workloads that run to completion (batch/v1 Jobs
// and CronJobs) and the older workload kinds: core PodTemplates and
// ReplicationControllers, and apps ControllerRevisions.
func batchResources() []*Resource {
	batch := func(res string) schema.GroupVersionResource { return gvr(batchv1.GroupName, "v1", res) }
	all := []string{"all"}
	return []*Resource{
		{GVR: batch("cronjobs"), Kind: "CronJob", Namespaced: true, ShortNames: []string{"cj"}, Categories: all, Status: true, Generation: true,
			New: func() runtime.Object { return &batchv1.CronJob{} }, NewList: func() runtime.Object { return &batchv1.CronJobList{} }},
		{GVR: batch("jobs"), Kind: "Job", Namespaced: true, Categories: all, Status: true, Generation: true,
			New: func() runtime.Object { return &batchv1.Job{} }, NewList: func() runtime.Object { return &batchv1.JobList{} },
			Fields: func(o runtime.Object) fields.Set {
				return fields.Set{"status.successful": strconv.Itoa(int(o.(*batchv1.Job).Status.Succeeded))}
			}},
		{GVR: gvr("", "v1", "podtemplates"), Kind: "PodTemplate", Namespaced: true, Generation: true,
			New: func() runtime.Object { return &corev1.PodTemplate{} }, NewList: func() runtime.Object { return &corev1.PodTemplateList{} }},
		{GVR: gvr("", "v1", "replicationcontrollers"), Kind: "ReplicationController", Namespaced: true, ShortNames: []string{"rc"}, Categories: all, Status: true, Scale: true, Generation: true,
			New: func() runtime.Object { return &corev1.ReplicationController{} }, NewList: func() runtime.Object { return &corev1.ReplicationControllerList{} },
			Fields: func(o runtime.Object) fields.Set {
				return fields.Set{"status.replicas": strconv.Itoa(int(o.(*corev1.ReplicationController).Status.Replicas))}
			}},
		{GVR: gvr("apps", "v1", "controllerrevisions"), Kind: "ControllerRevision", Namespaced: true,
			New: func() runtime.Object { return &appsv1.ControllerRevision{} }, NewList: func() runtime.Object { return &appsv1.ControllerRevisionList{} }},
	}
}

package printers

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func template(containers ...string) corev1.PodTemplateSpec {
	t := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}}}
	for _, c := range containers {
		t.Spec.Containers = append(t.Spec.Containers, corev1.Container{Name: c, Image: "registry.example/" + c + ":1.0"})
	}
	return t
}

var webSelector = &metav1.LabelSelector{
	MatchLabels:      map[string]string{"app": "web"},
	MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"front", "back"}}},
}

func workloadCases() []goldenCase {
	return []goldenCase{
		{name: "deployments", obj: &appsv1.DeploymentList{Items: []appsv1.Deployment{
			{
				ObjectMeta: objectMeta("web", 2*24*time.Hour),
				Spec:       appsv1.DeploymentSpec{Replicas: ptr(int32(3)), Selector: webSelector, Template: template("app", "proxy")},
				Status:     appsv1.DeploymentStatus{ReadyReplicas: 2, UpdatedReplicas: 3, AvailableReplicas: 2},
			},
			{ObjectMeta: objectMeta("unset-replicas", time.Minute), Spec: appsv1.DeploymentSpec{Template: template("app")}},
		}}},
		{name: "replicasets", obj: &appsv1.ReplicaSetList{Items: []appsv1.ReplicaSet{{
			ObjectMeta: objectMeta("web-5d4f8", time.Hour),
			Spec:       appsv1.ReplicaSetSpec{Replicas: ptr(int32(3)), Selector: webSelector, Template: template("app")},
			Status:     appsv1.ReplicaSetStatus{Replicas: 3, ReadyReplicas: 1},
		}}}},
		{name: "statefulsets", obj: &appsv1.StatefulSetList{Items: []appsv1.StatefulSet{{
			ObjectMeta: objectMeta("db", time.Hour),
			Spec:       appsv1.StatefulSetSpec{Replicas: ptr(int32(3)), Template: template("postgres")},
			Status:     appsv1.StatefulSetStatus{ReadyReplicas: 2},
		}}}},
		{name: "daemonsets", obj: &appsv1.DaemonSetList{Items: []appsv1.DaemonSet{
			{
				ObjectMeta: objectMeta("agent", time.Hour),
				Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}}, Template: func() corev1.PodTemplateSpec {
					t := template("agent")
					t.Spec.NodeSelector = map[string]string{"kubernetes.io/os": "linux"}
					return t
				}()},
				Status: appsv1.DaemonSetStatus{DesiredNumberScheduled: 3, CurrentNumberScheduled: 3, NumberReady: 2, UpdatedNumberScheduled: 3, NumberAvailable: 2},
			},
			{ObjectMeta: objectMeta("everywhere", time.Hour)},
		}}},
		{name: "controllerrevisions", obj: &appsv1.ControllerRevisionList{Items: []appsv1.ControllerRevision{
			{ObjectMeta: func() metav1.ObjectMeta {
				m := objectMeta("db-7c9d", time.Hour)
				m.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "db", Controller: ptr(true)}}
				return m
			}(), Revision: 2},
			{ObjectMeta: objectMeta("orphan", time.Hour), Revision: 1},
		}}},
		{name: "jobs", obj: &batchv1.JobList{Items: []batchv1.Job{
			{
				ObjectMeta: objectMeta("done", time.Hour),
				Spec:       batchv1.JobSpec{Completions: ptr(int32(3)), Template: template("work"), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"job": "done"}}},
				Status: batchv1.JobStatus{
					Succeeded: 3, StartTime: ptr(ago(time.Hour)), CompletionTime: ptr(ago(45 * time.Minute)),
					Conditions: []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}},
				},
			},
			{
				ObjectMeta: objectMeta("parallel", time.Hour),
				Spec:       batchv1.JobSpec{Parallelism: ptr(int32(4)), Template: template("work")},
				Status:     batchv1.JobStatus{Succeeded: 0, StartTime: ptr(ago(10 * time.Minute))},
			},
			{
				ObjectMeta: objectMeta("suspended", time.Hour),
				Status:     batchv1.JobStatus{Conditions: []batchv1.JobCondition{{Type: batchv1.JobSuspended, Status: corev1.ConditionTrue}}},
			},
			{
				ObjectMeta: objectMeta("failing", time.Hour),
				Status: batchv1.JobStatus{Conditions: []batchv1.JobCondition{
					{Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue}, {Type: batchv1.JobComplete, Status: corev1.ConditionFalse},
				}},
			},
			{
				ObjectMeta: func() metav1.ObjectMeta {
					m := objectMeta("deleting", time.Hour)
					m.DeletionTimestamp = ptr(ago(time.Second))
					return m
				}(),
				Status: batchv1.JobStatus{Conditions: []batchv1.JobCondition{{Type: batchv1.JobSuspended, Status: corev1.ConditionTrue}}},
			},
		}}},
		{name: "cronjobs", obj: &batchv1.CronJobList{Items: []batchv1.CronJob{
			{
				ObjectMeta: objectMeta("nightly", 7*24*time.Hour),
				Spec: batchv1.CronJobSpec{
					Schedule: "0 3 * * *", TimeZone: ptr("Europe/Paris"), Suspend: ptr(false),
					JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: template("backup")}},
				},
				Status: batchv1.CronJobStatus{Active: []corev1.ObjectReference{{Name: "nightly-1"}}, LastScheduleTime: ptr(ago(9 * time.Hour))},
			},
			{ObjectMeta: objectMeta("new", time.Minute), Spec: batchv1.CronJobSpec{Schedule: "@hourly"}},
		}}},
		{name: "poddisruptionbudgets", obj: &policyv1.PodDisruptionBudgetList{Items: []policyv1.PodDisruptionBudget{
			{ObjectMeta: objectMeta("web", time.Hour), Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr(intstr.FromString("50%"))}, Status: policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: 1}},
			{ObjectMeta: objectMeta("db", time.Hour), Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: ptr(intstr.FromInt32(1))}},
		}}},
		{name: "podtemplates", obj: &corev1.PodTemplateList{Items: []corev1.PodTemplate{{ObjectMeta: objectMeta("tmpl", time.Hour), Template: template("a", "b")}}}},
		{name: "replicationcontrollers", obj: &corev1.ReplicationControllerList{Items: []corev1.ReplicationController{
			{
				ObjectMeta: objectMeta("old", time.Hour),
				Spec:       corev1.ReplicationControllerSpec{Replicas: ptr(int32(2)), Selector: map[string]string{"app": "old"}, Template: ptr(template("app"))},
				Status:     corev1.ReplicationControllerStatus{Replicas: 2, ReadyReplicas: 2},
			},
			{ObjectMeta: objectMeta("bare", time.Hour)},
		}}},
	}
}

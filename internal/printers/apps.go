package printers

import (
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// appsPrinters covers apps/v1.
func appsPrinters() []registration {
	return []registration{
		cellsPrinter(deploymentColumns, deploymentCells),
		cellsPrinter(replicaSetColumns, replicaSetCells),
		cellsPrinter(statefulSetColumns, statefulSetCells),
		cellsPrinter(daemonSetColumns, daemonSetCells),
		cellsPrinter(controllerRevisionColumns, controllerRevisionCells),
	}
}

var deploymentColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	column("Ready", "string", "Ready pods out of the desired replicas."),
	column("Up-to-date", "string", appsv1.DeploymentStatus{}.SwaggerDoc()["updatedReplicas"]),
	column("Available", "string", appsv1.DeploymentStatus{}.SwaggerDoc()["availableReplicas"]),
	ageColumn(),
	containersColumn(),
	imagesColumn(),
	wideColumn("Selector", "string", appsv1.DeploymentSpec{}.SwaggerDoc()["selector"]),
}

func deploymentCells(d *appsv1.Deployment, now time.Time) []any {
	names, images := containerCells(d.Spec.Template.Spec.Containers)
	selector := "<invalid>"
	if s, err := metav1.LabelSelectorAsSelector(d.Spec.Selector); err == nil {
		selector = s.String()
	}
	return []any{
		d.Name,
		fmt.Sprintf("%d/%d", d.Status.ReadyReplicas, replicas(d.Spec.Replicas)),
		int64(d.Status.UpdatedReplicas),
		int64(d.Status.AvailableReplicas),
		since(d.CreationTimestamp, now),
		names, images, selector,
	}
}

var replicaSetColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	column("Desired", "integer", appsv1.ReplicaSetSpec{}.SwaggerDoc()["replicas"]),
	column("Current", "integer", appsv1.ReplicaSetStatus{}.SwaggerDoc()["replicas"]),
	column("Ready", "integer", appsv1.ReplicaSetStatus{}.SwaggerDoc()["readyReplicas"]),
	ageColumn(),
	containersColumn(),
	imagesColumn(),
	wideColumn("Selector", "string", appsv1.ReplicaSetSpec{}.SwaggerDoc()["selector"]),
}

func replicaSetCells(rs *appsv1.ReplicaSet, now time.Time) []any {
	names, images := containerCells(rs.Spec.Template.Spec.Containers)
	return []any{
		rs.Name, int64(replicas(rs.Spec.Replicas)), int64(rs.Status.Replicas), int64(rs.Status.ReadyReplicas),
		since(rs.CreationTimestamp, now), names, images, metav1.FormatLabelSelector(rs.Spec.Selector),
	}
}

var statefulSetColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	column("Ready", "string", "Ready pods out of the desired replicas."),
	ageColumn(),
	containersColumn(),
	imagesColumn(),
}

func statefulSetCells(ss *appsv1.StatefulSet, now time.Time) []any {
	names, images := containerCells(ss.Spec.Template.Spec.Containers)
	return []any{
		ss.Name, fmt.Sprintf("%d/%d", ss.Status.ReadyReplicas, replicas(ss.Spec.Replicas)),
		since(ss.CreationTimestamp, now), names, images,
	}
}

var daemonSetStatusDoc = appsv1.DaemonSetStatus{}.SwaggerDoc()

var daemonSetColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	column("Desired", "integer", daemonSetStatusDoc["desiredNumberScheduled"]),
	column("Current", "integer", daemonSetStatusDoc["currentNumberScheduled"]),
	column("Ready", "integer", daemonSetStatusDoc["numberReady"]),
	column("Up-to-date", "integer", daemonSetStatusDoc["updatedNumberScheduled"]),
	column("Available", "integer", daemonSetStatusDoc["numberAvailable"]),
	column("Node Selector", "string", "The node selector of the pod template."),
	ageColumn(),
	containersColumn(),
	imagesColumn(),
	wideColumn("Selector", "string", appsv1.DaemonSetSpec{}.SwaggerDoc()["selector"]),
}

func daemonSetCells(ds *appsv1.DaemonSet, now time.Time) []any {
	names, images := containerCells(ds.Spec.Template.Spec.Containers)
	st := ds.Status
	return []any{
		ds.Name, int64(st.DesiredNumberScheduled), int64(st.CurrentNumberScheduled), int64(st.NumberReady),
		int64(st.UpdatedNumberScheduled), int64(st.NumberAvailable),
		labels.FormatLabels(ds.Spec.Template.Spec.NodeSelector), since(ds.CreationTimestamp, now),
		names, images, metav1.FormatLabelSelector(ds.Spec.Selector),
	}
}

var controllerRevisionColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	column("Controller", "string", "The controller that owns the revision."),
	column("Revision", "string", appsv1.ControllerRevision{}.SwaggerDoc()["revision"]),
	ageColumn(),
}

func controllerRevisionCells(cr *appsv1.ControllerRevision, now time.Time) []any {
	controller := none
	if ref := metav1.GetControllerOf(cr); ref != nil {
		// "statefulset.apps/web"; a malformed apiVersion leaves the group out.
		gv, _ := schema.ParseGroupVersion(ref.APIVersion)
		controller = ref.Name
		if gk := gv.WithKind(ref.Kind).GroupKind(); !gk.Empty() {
			controller = strings.ToLower(gk.String()) + "/" + ref.Name
		}
	}
	return []any{cr.Name, controller, cr.Revision, since(cr.CreationTimestamp, now)}
}

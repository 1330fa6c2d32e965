package printers

import (
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// corePrinters covers the legacy core group (/api/v1). Pods, nodes, events,
// services and volumes have files of their own. Limit ranges have no
// printer in kube-apiserver either and get the default table.
func corePrinters() []registration {
	regs := []registration{
		cellsPrinter(namespaceColumns, namespaceCells),
		cellsPrinter(configMapColumns, configMapCells),
		cellsPrinter(secretColumns, secretCells),
		cellsPrinter(serviceAccountColumns, serviceAccountCells),
		cellsPrinter(resourceQuotaColumns, resourceQuotaCells),
		cellsPrinter(podTemplateColumns, podTemplateCells),
		cellsPrinter(replicationControllerColumns, replicationControllerCells),
		cellsPrinter(componentStatusColumns, componentStatusCells),
	}
	regs = append(regs, corePodPrinters()...)
	regs = append(regs, coreNodePrinters()...)
	regs = append(regs, coreServicePrinters()...)
	regs = append(regs, coreVolumePrinters()...)
	regs = append(regs, cellsPrinter(coreEventColumns, coreEventCells))
	return regs
}

var namespaceColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	column("Status", "string", "The phase of the namespace."),
	ageColumn(),
}

func namespaceCells(ns *corev1.Namespace, now time.Time) []any {
	return []any{ns.Name, string(ns.Status.Phase), since(ns.CreationTimestamp, now)}
}

var configMapColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	column("Data", "string", corev1.ConfigMap{}.SwaggerDoc()["data"]),
	ageColumn(),
}

func configMapCells(cm *corev1.ConfigMap, now time.Time) []any {
	return []any{cm.Name, int64(len(cm.Data) + len(cm.BinaryData)), since(cm.CreationTimestamp, now)}
}

var secretColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	column("Type", "string", corev1.Secret{}.SwaggerDoc()["type"]),
	column("Data", "string", corev1.Secret{}.SwaggerDoc()["data"]),
	ageColumn(),
}

func secretCells(s *corev1.Secret, now time.Time) []any {
	// StringData is write-only and never stored, so only Data counts.
	return []any{s.Name, string(s.Type), int64(len(s.Data)), since(s.CreationTimestamp, now)}
}

var serviceAccountColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	column("Secrets", "string", corev1.ServiceAccount{}.SwaggerDoc()["secrets"]),
	ageColumn(),
}

func serviceAccountCells(sa *corev1.ServiceAccount, now time.Time) []any {
	return []any{sa.Name, int64(len(sa.Secrets)), since(sa.CreationTimestamp, now)}
}

var resourceQuotaColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	column("Request", "string", "Used and hard amounts of the resources that are not limits."),
	column("Limit", "string", "Used and hard amounts of the limits.* resources."),
	ageColumn(),
}

// resourceQuotaCells lists "resource: used/hard" for every hard limit in
// name order, splitting the limits.* resources into their own column.
func resourceQuotaCells(q *corev1.ResourceQuota, now time.Time) []any {
	names := make([]string, 0, len(q.Status.Hard))
	for name := range q.Status.Hard {
		names = append(names, string(name))
	}
	slices.Sort(names)
	var requests, limits []string
	for _, name := range names {
		used := q.Status.Used[corev1.ResourceName(name)]
		hard := q.Status.Hard[corev1.ResourceName(name)]
		entry := fmt.Sprintf("%s: %s/%s", name, used.String(), hard.String())
		if prefix, _, ok := strings.Cut(name, "."); ok && prefix == "limits" {
			limits = append(limits, entry)
		} else {
			requests = append(requests, entry)
		}
	}
	return []any{q.Name, strings.Join(requests, ", "), strings.Join(limits, ", "), since(q.CreationTimestamp, now)}
}

var podTemplateColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	column("Containers", "string", "Names of the containers in the pod template."),
	column("Images", "string", "Images of the containers in the pod template."),
	column("Pod Labels", "string", "Labels of the pod template."),
}

func podTemplateCells(t *corev1.PodTemplate, _ time.Time) []any {
	names, images := containerCells(t.Template.Spec.Containers)
	return []any{t.Name, names, images, labels.FormatLabels(t.Template.Labels)}
}

var replicationControllerColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	column("Desired", "integer", corev1.ReplicationControllerSpec{}.SwaggerDoc()["replicas"]),
	column("Current", "integer", corev1.ReplicationControllerStatus{}.SwaggerDoc()["replicas"]),
	column("Ready", "integer", corev1.ReplicationControllerStatus{}.SwaggerDoc()["readyReplicas"]),
	ageColumn(),
	containersColumn(),
	imagesColumn(),
	wideColumn("Selector", "string", corev1.ReplicationControllerSpec{}.SwaggerDoc()["selector"]),
}

func replicationControllerCells(rc *corev1.ReplicationController, now time.Time) []any {
	var containers []corev1.Container
	if rc.Spec.Template != nil {
		containers = rc.Spec.Template.Spec.Containers
	}
	names, images := containerCells(containers)
	return []any{
		rc.Name, int64(replicas(rc.Spec.Replicas)), int64(rc.Status.Replicas), int64(rc.Status.ReadyReplicas),
		since(rc.CreationTimestamp, now), names, images, labels.FormatLabels(rc.Spec.Selector),
	}
}

var componentStatusColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	column("Status", "string", "Status of the component conditions."),
	column("Message", "string", "Message of the component conditions."),
	column("Error", "string", "Error of the component conditions."),
}

func componentStatusCells(cs *corev1.ComponentStatus, _ time.Time) []any {
	status, message, errText := "Unknown", "", ""
	for _, c := range cs.Conditions {
		if c.Type != corev1.ComponentHealthy {
			continue
		}
		status = "Unhealthy"
		if c.Status == corev1.ConditionTrue {
			status = "Healthy"
		}
		message, errText = c.Message, c.Error
		break
	}
	return []any{cs.Name, status, message, errText}
}

package printers

import (
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func coreNodePrinters() []registration {
	return []registration{cellsPrinter(nodeColumns, nodeCells)}
}

var nodeInfoDoc = corev1.NodeSystemInfo{}.SwaggerDoc()

var nodeColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	column("Status", "string", "The readiness of the node, and whether it takes new pods."),
	column("Roles", "string", "The roles of the node, from its node-role.kubernetes.io/ labels."),
	ageColumn(),
	column("Version", "string", nodeInfoDoc["kubeletVersion"]),
	wideColumn("Internal-IP", "string", corev1.NodeStatus{}.SwaggerDoc()["addresses"]),
	wideColumn("External-IP", "string", corev1.NodeStatus{}.SwaggerDoc()["addresses"]),
	wideColumn("OS-Image", "string", nodeInfoDoc["osImage"]),
	wideColumn("Kernel-Version", "string", nodeInfoDoc["kernelVersion"]),
	wideColumn("Container-Runtime", "string", nodeInfoDoc["containerRuntimeVersion"]),
}

// Node role labels: node-role.kubernetes.io/<role> (any value), and the
// older kubernetes.io/role=<role>.
const (
	nodeRolePrefix = "node-role.kubernetes.io/"
	nodeRoleLabel  = "kubernetes.io/role"
)

func nodeCells(node *corev1.Node, now time.Time) []any {
	info := node.Status.NodeInfo
	return []any{
		node.Name,
		nodeStatus(node),
		orNone(strings.Join(nodeRoles(node), ",")),
		since(node.CreationTimestamp, now),
		info.KubeletVersion,
		nodeAddress(node, corev1.NodeInternalIP),
		nodeAddress(node, corev1.NodeExternalIP),
		orUnknown(info.OSImage),
		orUnknown(info.KernelVersion),
		orUnknown(info.ContainerRuntimeVersion),
	}
}

// nodeStatus is Ready, NotReady or Unknown (no Ready condition yet), with
// SchedulingDisabled added for cordoned nodes.
func nodeStatus(node *corev1.Node) string {
	status := "Unknown"
	for _, c := range node.Status.Conditions {
		if c.Type != corev1.NodeReady {
			continue
		}
		// The last Ready condition wins, should there be several.
		status = "NotReady"
		if c.Status == corev1.ConditionTrue {
			status = "Ready"
		}
	}
	if node.Spec.Unschedulable {
		status += ",SchedulingDisabled"
	}
	return status
}

func nodeRoles(node *corev1.Node) []string {
	var roles []string
	for k, v := range node.Labels {
		switch {
		case strings.HasPrefix(k, nodeRolePrefix):
			if role := strings.TrimPrefix(k, nodeRolePrefix); role != "" {
				roles = append(roles, role)
			}
		case k == nodeRoleLabel && v != "":
			roles = append(roles, v)
		}
	}
	slices.Sort(roles)
	return slices.Compact(roles)
}

// nodeAddress is the first address of a type, or "<none>".
func nodeAddress(node *corev1.Node, typ corev1.NodeAddressType) string {
	for _, a := range node.Status.Addresses {
		if a.Type == typ {
			return a.Address
		}
	}
	return none
}

func orUnknown(s string) string {
	if s == "" {
		return unknown
	}
	return s
}

package printers

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

func coreServicePrinters() []registration {
	return []registration{
		cellsPrinter(serviceColumns, serviceCells),
		cellsPrinter(endpointsColumns, endpointsCells),
	}
}

var serviceSpecDoc = corev1.ServiceSpec{}.SwaggerDoc()

var serviceColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	column("Type", "string", serviceSpecDoc["type"]),
	column("Cluster-IP", "string", serviceSpecDoc["clusterIP"]),
	column("External-IP", "string", serviceSpecDoc["externalIPs"]),
	column("Port(s)", "string", serviceSpecDoc["ports"]),
	ageColumn(),
	wideColumn("Selector", "string", serviceSpecDoc["selector"]),
}

func serviceCells(svc *corev1.Service, now time.Time) []any {
	return []any{
		svc.Name,
		string(svc.Spec.Type),
		orNone(clusterIP(svc)),
		serviceExternalIP(svc),
		orNone(servicePorts(svc.Spec.Ports)),
		since(svc.CreationTimestamp, now),
		labels.FormatLabels(svc.Spec.Selector),
	}
}

// clusterIP is the primary cluster IP; clusterIP is authoritative over
// clusterIPs for older clients, and "None" marks a headless service.
func clusterIP(svc *corev1.Service) string {
	if svc.Spec.ClusterIP != "" {
		return svc.Spec.ClusterIP
	}
	if len(svc.Spec.ClusterIPs) > 0 {
		return svc.Spec.ClusterIPs[0]
	}
	return ""
}

// serviceExternalIP depends on the type: external IPs for ClusterIP and
// NodePort, load-balancer ingress points (or <pending>) for LoadBalancer,
// the DNS name for ExternalName.
func serviceExternalIP(svc *corev1.Service) string {
	switch svc.Spec.Type {
	case corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort:
		return orNone(strings.Join(svc.Spec.ExternalIPs, ","))
	case corev1.ServiceTypeLoadBalancer:
		ips := append(loadBalancerIngress(svc.Status.LoadBalancer.Ingress), svc.Spec.ExternalIPs...)
		if len(ips) == 0 {
			return "<pending>"
		}
		return strings.Join(ips, ",")
	case corev1.ServiceTypeExternalName:
		return svc.Spec.ExternalName
	}
	return unknown
}

// loadBalancerIngress lists the distinct IPs (or host names) in sorted order.
func loadBalancerIngress(ingress []corev1.LoadBalancerIngress) []string {
	var out []string
	for _, in := range ingress {
		switch {
		case in.IP != "":
			out = append(out, in.IP)
		case in.Hostname != "":
			out = append(out, in.Hostname)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// servicePorts renders "80/TCP,443:30443/TCP".
func servicePorts(ports []corev1.ServicePort) string {
	out := make([]string, len(ports))
	for i, p := range ports {
		if p.NodePort > 0 {
			out[i] = fmt.Sprintf("%d:%d/%s", p.Port, p.NodePort, p.Protocol)
		} else {
			out[i] = fmt.Sprintf("%d/%s", p.Port, p.Protocol)
		}
	}
	return strings.Join(out, ",")
}

var endpointsColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	column("Endpoints", "string", corev1.Endpoints{}.SwaggerDoc()["subsets"]),
	ageColumn(),
}

func endpointsCells(ep *corev1.Endpoints, now time.Time) []any {
	return []any{ep.Name, formatEndpoints(ep), since(ep.CreationTimestamp, now)}
}

// endpointsShown is how many addresses the ENDPOINTS cell lists before it
// summarizes the rest as "+ N more...".
const endpointsShown = 3

// formatEndpoints lists ip:port for every address and port of every subset
// (bare IPs for headless subsets without ports).
func formatEndpoints(ep *corev1.Endpoints) string {
	if len(ep.Subsets) == 0 {
		return none
	}
	var list []string
	count := 0
	add := func(s string) {
		count++
		if len(list) < endpointsShown {
			list = append(list, s)
		}
	}
	for _, ss := range ep.Subsets {
		if len(ss.Ports) == 0 {
			for _, a := range ss.Addresses {
				add(a.IP)
			}
			continue
		}
		for _, p := range ss.Ports {
			for _, a := range ss.Addresses {
				add(net.JoinHostPort(a.IP, strconv.Itoa(int(p.Port))))
			}
		}
	}
	if count > len(list) {
		return fmt.Sprintf("%s + %d more...", strings.Join(list, ","), count-len(list))
	}
	return strings.Join(list, ",")
}

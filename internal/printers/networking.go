package printers

import (
	"fmt"
	"slices"
	"strings"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// networkingPrinters covers networking.k8s.io/v1.
func networkingPrinters() []registration {
	return []registration{
		cellsPrinter(ingressColumns, ingressCells),
		cellsPrinter(ingressClassColumns, ingressClassCells),
		cellsPrinter(networkPolicyColumns, networkPolicyCells),
		cellsPrinter(serviceCIDRColumns, serviceCIDRCells),
		cellsPrinter(ipAddressColumns, ipAddressCells),
	}
}

var ingressColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	column("Class", "string", "The ingress class that handles the ingress."),
	column("Hosts", "string", "The hosts the rules match requests against."),
	column("Address", "string", "The addresses of the load balancer."),
	column("Ports", "string", "The ports the ingress serves on."),
	ageColumn(),
}

// ingressHostsShown is how many hosts the HOSTS cell lists.
const ingressHostsShown = 3

func ingressCells(in *networkingv1.Ingress, now time.Time) []any {
	hostCell := ingressHosts(in.Spec.Rules)

	var addresses []string
	for _, lb := range in.Status.LoadBalancer.Ingress {
		switch {
		case lb.IP != "":
			addresses = append(addresses, lb.IP)
		case lb.Hostname != "":
			addresses = append(addresses, lb.Hostname)
		}
	}
	slices.Sort(addresses)

	ports := "80"
	if len(in.Spec.TLS) > 0 {
		ports = "80, 443"
	}
	return []any{
		in.Name, stringOr(in.Spec.IngressClassName, none), hostCell,
		strings.Join(slices.Compact(addresses), ","), ports, since(in.CreationTimestamp, now),
	}
}

// ingressHosts lists the first few hosts; once that many are shown, any
// further rule, with a host or not, counts towards "+ N more...". Rules
// without hosts match every host: "*".
func ingressHosts(rules []networkingv1.IngressRule) string {
	var hosts []string
	more := false
	for _, r := range rules {
		if len(hosts) == ingressHostsShown {
			more = true
			break
		}
		if r.Host != "" {
			hosts = append(hosts, r.Host)
		}
	}
	switch {
	case len(hosts) == 0:
		return "*"
	case more:
		return fmt.Sprintf("%s + %d more...", strings.Join(hosts, ","), len(rules)-ingressHostsShown)
	}
	return strings.Join(hosts, ",")
}

var ingressClassColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	column("Controller", "string", networkingv1.IngressClassSpec{}.SwaggerDoc()["controller"]),
	column("Parameters", "string", networkingv1.IngressClassSpec{}.SwaggerDoc()["parameters"]),
	ageColumn(),
}

func ingressClassCells(c *networkingv1.IngressClass, now time.Time) []any {
	params := none
	if p := c.Spec.Parameters; p != nil {
		params = p.Kind
		if p.APIGroup != nil {
			params += "." + *p.APIGroup
		}
		params += "/" + p.Name
	}
	name := c.Name
	if c.Annotations[networkingv1.AnnotationIsDefaultIngressClass] == "true" {
		name += " (default)"
	}
	return []any{name, c.Spec.Controller, params, since(c.CreationTimestamp, now)}
}

var networkPolicyColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	column("Pod-Selector", "string", networkingv1.NetworkPolicySpec{}.SwaggerDoc()["podSelector"]),
	ageColumn(),
}

func networkPolicyCells(np *networkingv1.NetworkPolicy, now time.Time) []any {
	return []any{np.Name, metav1.FormatLabelSelector(&np.Spec.PodSelector), since(np.CreationTimestamp, now)}
}

var serviceCIDRColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	column("CIDRs", "string", networkingv1.ServiceCIDRSpec{}.SwaggerDoc()["cidrs"]),
	ageColumn(),
}

func serviceCIDRCells(c *networkingv1.ServiceCIDR, now time.Time) []any {
	return []any{c.Name, strings.Join(c.Spec.CIDRs, ","), since(c.CreationTimestamp, now)}
}

// ipAddressColumns has no Age column, though each row ends with the age:
// kube-apiserver's table has this shape, and kubectl shows the two
// columns it declares.
var ipAddressColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	column("ParentRef", "string", networkingv1.IPAddressSpec{}.SwaggerDoc()["parentRef"]),
}

// ipAddressCells names the parent as resource.group[/namespace]/name.
func ipAddressCells(ip *networkingv1.IPAddress, now time.Time) []any {
	parent := none
	if ref := ip.Spec.ParentRef; ref != nil {
		parent = strings.ToLower(schema.GroupResource{Group: ref.Group, Resource: ref.Resource}.String())
		if ref.Namespace != "" {
			parent += "/" + ref.Namespace
		}
		parent += "/" + ref.Name
	}
	return []any{ip.Name, parent, since(ip.CreationTimestamp, now)}
}

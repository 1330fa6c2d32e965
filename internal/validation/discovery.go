package validation

import (
	"fmt"
	"slices"

	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	netutils "k8s.io/utils/net"
)

const (
	maxEndpointSliceEndpoints = 1000
	maxEndpointAddresses      = 100
	maxEndpointSlicePorts     = 20000
	maxEndpointTopologyLabels = 16
	maxEndpointZoneHints      = 8
	maxEndpointNodeHints      = 8
)

var supportedAddressTypes = []string{string(discoveryv1.AddressTypeFQDN), string(discoveryv1.AddressTypeIPv4), string(discoveryv1.AddressTypeIPv6)}

// The controllers whose slices get no address warnings: they write what
// Services and Endpoints already hold.
var endpointSliceControllers = []string{"endpointslice-controller.k8s.io", "endpointslicemirroring-controller.k8s.io"}

func validateEndpointSlice(s *discoveryv1.EndpointSlice) field.ErrorList {
	errs, declarative := endpointSliceChecks(s, nil)
	at := field.NewPath("addressType")
	switch {
	case s.AddressType == "":
		declarative = append(field.ErrorList{field.Required(at, "")}, declarative...)
	case !contains(supportedAddressTypes, string(s.AddressType)):
		declarative = append(field.ErrorList{field.NotSupported(at, s.AddressType, supportedAddressTypes)}, declarative...)
	}
	return append(errs, declarative...)
}

// The address type of a slice is fixed; the declarative rule reports a
// change without the value and then checks the type no further, so an
// unknown new type is reported by the hand-written rule, in its place.
func validateEndpointSliceUpdate(s, old *discoveryv1.EndpointSlice) field.ErrorList {
	errs, declarative := endpointSliceChecks(s, old)
	at := field.NewPath("addressType")
	if s.AddressType != old.AddressType && s.AddressType != "" && !contains(supportedAddressTypes, string(s.AddressType)) {
		errs = slices.Insert(errs, len(validateMeta(&s.ObjectMeta, true, nameIsDNSSubdomain)),
			field.NotSupported(at, s.AddressType, supportedAddressTypes))
	}
	errs = append(errs, validateMetaUpdate(&s.ObjectMeta, &old.ObjectMeta)...)
	if s.AddressType != old.AddressType {
		var head field.ErrorList
		if s.AddressType == "" {
			head = append(head, field.Required(at, ""))
		}
		declarative = append(append(head, field.Invalid(at, nil, genericvalidation.FieldImmutableErrorMsg)), declarative...)
	}
	return append(errs, declarative...)
}

// endpointSliceChecks returns the hand-written errors and the declarative
// ones of the endpoints (their required, bounded addresses) apart. On an
// update that leaves the endpoints as they were, they are not checked
// again: older servers accepted what this one may not.
func endpointSliceChecks(s, old *discoveryv1.EndpointSlice) (errs, declarative field.ErrorList) {
	errs = validateMeta(&s.ObjectMeta, true, nameIsDNSSubdomain)
	errs = append(errs, validateEndpointPorts(s.Ports, field.NewPath("ports"))...)
	if old != nil && equality.Semantic.DeepEqual(s.Endpoints, old.Endpoints) {
		return errs, nil
	}
	ep := field.NewPath("endpoints")
	if len(s.Endpoints) > maxEndpointSliceEndpoints {
		return append(errs, field.TooMany(ep, len(s.Endpoints), maxEndpointSliceEndpoints)), nil
	}
	for i := range s.Endpoints {
		e, d := validateEndpoint(&s.Endpoints[i], s.AddressType, ep.Index(i))
		errs = append(errs, e...)
		declarative = append(declarative, d...)
	}
	return errs, declarative
}

func validateEndpoint(e *discoveryv1.Endpoint, addressType discoveryv1.AddressType, p *field.Path) (errs, declarative field.ErrorList) {
	ap := p.Child("addresses")
	switch {
	case len(e.Addresses) == 0:
		declarative = append(declarative, field.Required(ap, ""))
	case len(e.Addresses) > maxEndpointAddresses:
		declarative = append(declarative, field.TooMany(ap, len(e.Addresses), maxEndpointAddresses))
	}
	for i, a := range e.Addresses {
		errs = append(errs, validateEndpointAddressOfType(a, addressType, ap, i)...)
	}
	if e.NodeName != nil {
		for _, msg := range nameIsDNSSubdomain(*e.NodeName, false) {
			errs = append(errs, field.Invalid(p.Child("nodeName"), *e.NodeName, msg))
		}
	}
	tp := p.Child("deprecatedTopology")
	if len(e.DeprecatedTopology) > maxEndpointTopologyLabels {
		errs = append(errs, field.TooMany(tp, len(e.DeprecatedTopology), maxEndpointTopologyLabels))
	}
	errs = append(errs, validateLabelsAt(e.DeprecatedTopology, tp)...)
	if e.Hostname != nil {
		errs = append(errs, dns1123Label(*e.Hostname, p.Child("hostname"))...)
	}
	if e.Hints != nil {
		errs = append(errs, validateEndpointHints(e.Hints, p.Child("hints"))...)
	}
	return errs, declarative
}

// validateEndpointAddressOfType checks addresses of the known types;
// those of an unknown type are reported by the type alone. A family
// mismatch names the list, not the address.
func validateEndpointAddressOfType(a string, t discoveryv1.AddressType, list *field.Path, i int) field.ErrorList {
	p := list.Index(i)
	switch t {
	case discoveryv1.AddressTypeIPv4:
		if errs := utilvalidation.IsValidIPForLegacyField(p, a, strictIPs, nil); len(errs) > 0 {
			return errs
		}
		var errs field.ErrorList
		if !netutils.IsIPv4String(a) {
			errs = append(errs, field.Invalid(list, a, "must be an IPv4 address"))
		}
		return append(errs, validateNonSpecialIP(a, p)...)
	case discoveryv1.AddressTypeIPv6:
		if errs := utilvalidation.IsValidIP(p, a); len(errs) > 0 {
			return errs
		}
		var errs field.ErrorList
		if !netutils.IsIPv6String(a) {
			errs = append(errs, field.Invalid(list, a, "must be an IPv6 address"))
		}
		return append(errs, validateNonSpecialIP(a, p)...)
	case discoveryv1.AddressTypeFQDN:
		return utilvalidation.IsFullyQualifiedDomainName(p, a)
	}
	return nil
}

func validateEndpointHints(h *discoveryv1.EndpointHints, p *field.Path) field.ErrorList {
	zp := p.Child("forZones")
	if len(h.ForZones) > maxEndpointZoneHints {
		return field.ErrorList{field.TooMany(zp, len(h.ForZones), maxEndpointZoneHints)}
	}
	var errs field.ErrorList
	var zones []string
	for i, z := range h.ForZones {
		np := zp.Index(i).Child("name")
		if slices.Contains(zones, z.Name) {
			errs = append(errs, field.Duplicate(np, z.Name))
		} else {
			zones = append(zones, z.Name)
		}
		for _, msg := range utilvalidation.IsValidLabelValue(z.Name) {
			errs = append(errs, field.Invalid(np, z.Name, msg))
		}
	}
	fp := p.Child("forNodes")
	if len(h.ForNodes) > maxEndpointNodeHints {
		return append(errs, field.TooMany(fp, len(h.ForNodes), maxEndpointNodeHints))
	}
	var nodes []string
	for i, n := range h.ForNodes {
		np := fp.Index(i).Child("name")
		if slices.Contains(nodes, n.Name) {
			errs = append(errs, field.Duplicate(np, n.Name))
		} else {
			nodes = append(nodes, n.Name)
		}
		for _, msg := range nameIsDNSSubdomain(n.Name, false) {
			errs = append(errs, field.Invalid(np, n.Name, msg))
		}
	}
	return errs
}

func validateEndpointPorts(ports []discoveryv1.EndpointPort, p *field.Path) field.ErrorList {
	if len(ports) > maxEndpointSlicePorts {
		return field.ErrorList{field.TooMany(p, len(ports), maxEndpointSlicePorts)}
	}
	var errs field.ErrorList
	var names []string
	for i, port := range ports {
		pp := p.Index(i)
		name := ""
		if port.Name != nil {
			name = *port.Name
		}
		if name != "" {
			errs = append(errs, dns1123Label(name, pp.Child("name"))...)
		}
		if slices.Contains(names, name) {
			errs = append(errs, field.Duplicate(pp.Child("name"), name))
		} else {
			names = append(names, name)
		}
		switch {
		case port.Protocol == nil:
			errs = append(errs, field.Required(pp.Child("protocol"), ""))
		case !contains(supportedEndpointProtocol, string(*port.Protocol)):
			errs = append(errs, field.NotSupported(pp.Child("protocol"), *port.Protocol, supportedEndpointProtocol))
		}
		if port.AppProtocol != nil {
			errs = append(errs, qualifiedName(*port.AppProtocol, pp.Child("appProtocol"))...)
		}
	}
	return errs
}

// endpointSliceWarnings reports FQDN slices (deprecated) on create, under
// the path kube-apiserver names (spec.addressType, though slices have no
// spec), and,
// on every write, addresses in a non-standard form, except in the slices
// the endpoint controllers manage.
func endpointSliceWarnings(s *discoveryv1.EndpointSlice, create bool) []string {
	var warnings []string
	if create && s.AddressType == discoveryv1.AddressTypeFQDN {
		warnings = append(warnings, fmt.Sprintf("%s: FQDN endpoints are deprecated", field.NewPath("spec", "addressType")))
	}
	if contains(endpointSliceControllers, s.Labels[discoveryv1.LabelManagedBy]) {
		return warnings
	}
	for i, e := range s.Endpoints {
		for j, a := range e.Addresses {
			if netutils.ParseIPSloppy(a) == nil {
				continue
			}
			warnings = append(warnings, utilvalidation.GetWarningsForIP(field.NewPath("endpoints").Index(i).Child("addresses").Index(j), a)...)
		}
	}
	return warnings
}

package noderestriction

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"

	certificatesv1 "k8s.io/api/certificates/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	coordinationv1beta1 "k8s.io/api/coordination/v1beta1"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	resourcev1beta2 "k8s.io/api/resource/v1beta2"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/portcullis/portcullis/internal/admission"
)

// admitLease lets a node write only its own heartbeat Lease, in
// kube-node-lease.
func admitLease(nodeName string, a *admission.Attributes) error {
	if a.Namespace != corev1.NamespaceNodeLease {
		return forbidden(a, fmt.Errorf("can only access leases in the %q system namespace", corev1.NamespaceNodeLease))
	}
	name := a.Name
	if a.Operation == admission.Create {
		// The node authorizer cannot see the name of a create; the object has it.
		switch l := a.Object.(type) {
		case *coordinationv1.Lease:
			if l == nil {
				return forbidden(a, fmt.Errorf("unexpected type %s", typeOf(a.Object)))
			}
			name = l.Name
		case *coordinationv1beta1.Lease:
			if l == nil {
				return forbidden(a, fmt.Errorf("unexpected type %s", typeOf(a.Object)))
			}
			name = l.Name
		default:
			return forbidden(a, fmt.Errorf("unexpected type %s", typeOf(a.Object)))
		}
	}
	if name != nodeName {
		return forbidden(a, errors.New("can only access node lease with the same name as the requesting node"))
	}
	return nil
}

// admitCSINode lets a node write only the CSINode named after itself.
func admitCSINode(nodeName string, a *admission.Attributes) error {
	name := a.Name
	if a.Operation == admission.Create {
		n, ok := objectNameOf(a.Object)
		if !ok {
			return forbidden(a, errors.New("unable to access the object name"))
		}
		name = n
	}
	if name != nodeName {
		return forbidden(a, errors.New("can only access CSINode with the same name as the requesting node"))
	}
	return nil
}

// admitResourceSlice lets a node create and delete only ResourceSlices of
// its own node. The node authorizer decides the rest; it cannot see the
// content of a create, nor each object of a deletecollection, which
// reaches admission one object at a time.
func admitResourceSlice(nodeName string, a *admission.Attributes) error {
	var obj runtime.Object
	var verb string
	switch a.Operation {
	case admission.Create:
		obj, verb = a.Object, "create"
	case admission.Delete:
		obj, verb = a.OldObject, "delete"
	default:
		return nil
	}
	sliceNode, ok := sliceNodeName(obj)
	if !ok {
		return forbidden(a, fmt.Errorf("unexpected type %s", typeOf(obj)))
	}
	if sliceNode != nodeName {
		return forbidden(a, fmt.Errorf("can only %s ResourceSlice with the same NodeName as the requesting node", verb))
	}
	return nil
}

// sliceNodeName is spec.nodeName of a ResourceSlice of any served version.
func sliceNodeName(o runtime.Object) (string, bool) {
	deref := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	switch s := o.(type) {
	case *resourcev1.ResourceSlice:
		if s != nil {
			return deref(s.Spec.NodeName), true
		}
	case *resourcev1beta2.ResourceSlice:
		if s != nil {
			return deref(s.Spec.NodeName), true
		}
	case *resourcev1beta1.ResourceSlice:
		if s != nil {
			return s.Spec.NodeName, true
		}
	}
	return "", false
}

// admitCSR lets a node create kubelet client and serving CSRs only with
// its own identity as common name; the signers check the rest.
func admitCSR(nodeName string, a *admission.Attributes) error {
	if a.Operation != admission.Create {
		return nil
	}
	csr, ok := as[certificatesv1.CertificateSigningRequest](a.Object)
	if !ok {
		return forbidden(a, fmt.Errorf("unexpected type %s", typeOf(a.Object)))
	}
	if csr.Spec.SignerName != certificatesv1.KubeletServingSignerName && csr.Spec.SignerName != certificatesv1.KubeAPIServerClientKubeletSignerName {
		return nil
	}
	req, err := parseCSR(csr.Spec.Request)
	if err != nil {
		return forbidden(a, fmt.Errorf("unable to parse csr: %w", err))
	}
	if req.Subject.CommonName != "system:node:"+nodeName {
		return forbidden(a, fmt.Errorf("can only create a node CSR with CN=system:node:%s", nodeName))
	}
	return nil
}

// parseCSR decodes the PEM certificate request of a CSR.
func parseCSR(data []byte) (*x509.CertificateRequest, error) {
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "CERTIFICATE REQUEST" {
		return nil, errors.New("PEM block type must be CERTIFICATE REQUEST")
	}
	return x509.ParseCertificateRequest(block.Bytes)
}

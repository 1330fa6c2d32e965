package noderestriction

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"testing"

	certificatesv1 "k8s.io/api/certificates/v1"
	certificatesv1beta1 "k8s.io/api/certificates/v1beta1"
	coordinationv1 "k8s.io/api/coordination/v1"
	coordinationv1beta1 "k8s.io/api/coordination/v1beta1"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	resourcev1beta2 "k8s.io/api/resource/v1beta2"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/portcullis/portcullis/internal/admission"
)

func TestLeases(t *testing.T) {
	p := newPlugin(t, newStore(), Options{})
	lease := func(ns, name string) *coordinationv1.Lease {
		return &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	}
	const gvr = "coordination.k8s.io/v1/leases"
	runAdmit(t, p, []admitCase{
		{name: "create own lease", a: req(admission.Create, gvr, "", "kube-node-lease", "n1", lease("kube-node-lease", "n1"), nil)},
		{name: "create own lease, name only in the object", a: req(admission.Create, gvr, "", "kube-node-lease", "", lease("kube-node-lease", "n1"), nil)},
		{name: "create own v1beta1 lease", a: req(admission.Create, "coordination.k8s.io/v1beta1/leases", "", "kube-node-lease", "n1",
			&coordinationv1beta1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}, nil)},
		{name: "update own lease", a: req(admission.Update, gvr, "", "kube-node-lease", "n1", lease("kube-node-lease", "n1"), lease("kube-node-lease", "n1"))},
		{name: "delete own lease", a: req(admission.Delete, gvr, "", "kube-node-lease", "n1", nil, lease("kube-node-lease", "n1"))},
		{name: "create another node's lease", a: req(admission.Create, gvr, "", "kube-node-lease", "n2", lease("kube-node-lease", "n2"), nil),
			want: `leases.coordination.k8s.io "n2" is forbidden: can only access node lease with the same name as the requesting node`},
		{name: "update another node's lease", a: req(admission.Update, gvr, "", "kube-node-lease", "n2", lease("kube-node-lease", "n2"), lease("kube-node-lease", "n2")),
			want: `leases.coordination.k8s.io "n2" is forbidden: can only access node lease with the same name as the requesting node`},
		{name: "delete another node's lease", a: req(admission.Delete, gvr, "", "kube-node-lease", "n2", nil, nil),
			want: `leases.coordination.k8s.io "n2" is forbidden: can only access node lease with the same name as the requesting node`},
		{name: "lease in another namespace", a: req(admission.Create, gvr, "", "kube-system", "n1", lease("kube-system", "n1"), nil),
			want: `leases.coordination.k8s.io "n1" is forbidden: can only access leases in the "kube-node-lease" system namespace`},
		{name: "create, not a lease", a: req(admission.Create, gvr, "", "kube-node-lease", "n1", &corev1.Pod{}, nil),
			want: `leases.coordination.k8s.io "n1" is forbidden: unexpected type *v1.Pod`},
	})
}

func TestCSINodes(t *testing.T) {
	p := newPlugin(t, newStore(), Options{})
	csiNode := func(name string) *storagev1.CSINode {
		return &storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: name}}
	}
	const gvr = "storage.k8s.io/v1/csinodes"
	runAdmit(t, p, []admitCase{
		{name: "create own", a: req(admission.Create, gvr, "", "", "n1", csiNode("n1"), nil)},
		{name: "update own", a: req(admission.Update, gvr, "", "", "n1", csiNode("n1"), csiNode("n1"))},
		{name: "delete own", a: req(admission.Delete, gvr, "", "", "n1", nil, csiNode("n1"))},
		{name: "create another node's", a: req(admission.Create, gvr, "", "", "", csiNode("n2"), nil),
			want: `csinodes.storage.k8s.io "n2" is forbidden: can only access CSINode with the same name as the requesting node`},
		{name: "update another node's", a: req(admission.Update, gvr, "", "", "n2", csiNode("n2"), csiNode("n2")),
			want: `csinodes.storage.k8s.io "n2" is forbidden: can only access CSINode with the same name as the requesting node`},
		{name: "delete another node's", a: req(admission.Delete, gvr, "", "", "n2", nil, csiNode("n2")),
			want: `csinodes.storage.k8s.io "n2" is forbidden: can only access CSINode with the same name as the requesting node`},
		{name: "create without an object", a: req(admission.Create, gvr, "", "", "n1", nil, nil),
			want: `csinodes.storage.k8s.io "n1" is forbidden: unable to access the object name`},
	})
}

func TestResourceSlices(t *testing.T) {
	p := newPlugin(t, newStore(), Options{})
	slice := func(node *string) *resourcev1.ResourceSlice {
		return &resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: "s"}, Spec: resourcev1.ResourceSliceSpec{NodeName: node}}
	}
	const gvr = "resource.k8s.io/v1/resourceslices"
	const prefix = `resourceslices.resource.k8s.io "s" is forbidden: `
	runAdmit(t, p, []admitCase{
		{name: "create own", a: req(admission.Create, gvr, "", "", "s", slice(ptr.To("n1")), nil)},
		{name: "create own v1beta2", a: req(admission.Create, "resource.k8s.io/v1beta2/resourceslices", "", "", "s",
			&resourcev1beta2.ResourceSlice{Spec: resourcev1beta2.ResourceSliceSpec{NodeName: ptr.To("n1")}}, nil)},
		{name: "create own v1beta1", a: req(admission.Create, "resource.k8s.io/v1beta1/resourceslices", "", "", "s",
			&resourcev1beta1.ResourceSlice{Spec: resourcev1beta1.ResourceSliceSpec{NodeName: "n1"}}, nil)},
		{name: "delete own", a: req(admission.Delete, gvr, "", "", "s", nil, slice(ptr.To("n1")))},
		{name: "update is left to the authorizer", a: req(admission.Update, gvr, "", "", "s", slice(ptr.To("n2")), slice(ptr.To("n2")))},
		{name: "create another node's", a: req(admission.Create, gvr, "", "", "s", slice(ptr.To("n2")), nil),
			want: prefix + `can only create ResourceSlice with the same NodeName as the requesting node`},
		{name: "create one for all nodes", a: req(admission.Create, gvr, "", "", "s", slice(nil), nil),
			want: prefix + `can only create ResourceSlice with the same NodeName as the requesting node`},
		{name: "delete another node's", a: req(admission.Delete, gvr, "", "", "s", nil, slice(ptr.To("n2"))),
			want: prefix + `can only delete ResourceSlice with the same NodeName as the requesting node`},
		{name: "delete without the stored object", a: req(admission.Delete, gvr, "", "", "s", nil, nil),
			want: prefix + `unexpected type <nil>`},
		{name: "create, not a slice", a: req(admission.Create, gvr, "", "", "s", &corev1.Pod{}, nil),
			want: prefix + `unexpected type *v1.Pod`},
	})
}

func csrPEM(t *testing.T, cn string) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: cn, Organization: []string{"system:nodes"}}}, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
}

func TestCSRs(t *testing.T) {
	csr := func(signer string, request []byte) *admission.Attributes {
		c := &certificatesv1.CertificateSigningRequest{
			ObjectMeta: metav1.ObjectMeta{Name: "csr"},
			Spec:       certificatesv1.CertificateSigningRequestSpec{SignerName: signer, Request: request},
		}
		return req(admission.Create, "certificates.k8s.io/v1/certificatesigningrequests", "", "", "csr", c, nil)
	}
	own, other := csrPEM(t, "system:node:n1"), csrPEM(t, "system:node:n2")
	const prefix = `certificatesigningrequests.certificates.k8s.io "csr" is forbidden: `
	runAdmit(t, newPlugin(t, newStore(), Options{}), []admitCase{
		{name: "serving CSR for itself", a: csr(certificatesv1.KubeletServingSignerName, own)},
		{name: "client CSR for itself", a: csr(certificatesv1.KubeAPIServerClientKubeletSignerName, own)},
		{name: "other signer, any name", a: csr("example.com/signer", other)},
		{name: "other signer, unparsable", a: csr(certificatesv1.KubeAPIServerClientSignerName, []byte("junk"))},
		{name: "approval is left to the authorizer", a: req(admission.Update, "certificates.k8s.io/v1/certificatesigningrequests", "approval", "", "csr", nil, nil)},
		{name: "serving CSR for another node", a: csr(certificatesv1.KubeletServingSignerName, other),
			want: prefix + `can only create a node CSR with CN=system:node:n1`},
		{name: "client CSR for another node", a: csr(certificatesv1.KubeAPIServerClientKubeletSignerName, other),
			want: prefix + `can only create a node CSR with CN=system:node:n1`},
		{name: "not PEM", a: csr(certificatesv1.KubeletServingSignerName, []byte("junk")),
			want: prefix + `unable to parse csr: PEM block type must be CERTIFICATE REQUEST`},
		{name: "wrong PEM type", a: csr(certificatesv1.KubeletServingSignerName, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte{1}})),
			want: prefix + `unable to parse csr: PEM block type must be CERTIFICATE REQUEST`},
		{name: "not a CSR", a: req(admission.Create, "certificates.k8s.io/v1/certificatesigningrequests", "", "", "csr", &corev1.Pod{}, nil),
			want: prefix + `unexpected type *v1.Pod`},
	})
	t.Run("insecure kubelet CSRs allowed", func(t *testing.T) {
		p := newPlugin(t, newStore(), Options{AllowInsecureKubeletCSRs: true})
		checkErr(t, p.Admit(t.Context(), csr(certificatesv1.KubeletServingSignerName, other)), "", false)
	})
}

func TestPodCertificateRequests(t *testing.T) {
	s := newStore()
	s.pods["ns/mine"].Spec.ServiceAccountName = "sa"
	s.pods["ns/mirror"] = boundPod("mirror", "n1")
	s.pods["ns/mirror"].Annotations = map[string]string{corev1.MirrorPodAnnotationKey: "x"}
	s.pods["ns/nosa"] = boundPod("nosa", "n1")
	s.pods["ns/nosa"].Spec.ServiceAccountName = "gone"
	s.accounts["ns/sa"] = &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "sa", UID: "sa-uid"}}
	s.fail["ns/broken"] = true
	p := newPlugin(t, s, Options{})

	pcr := func(mutate func(*certificatesv1.PodCertificateRequestSpec)) *certificatesv1.PodCertificateRequest {
		r := &certificatesv1.PodCertificateRequest{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "r"},
			Spec: certificatesv1.PodCertificateRequestSpec{
				SignerName: "example.com/s", PodName: "mine", PodUID: "mine-uid",
				ServiceAccountName: "sa", ServiceAccountUID: "sa-uid", NodeName: "n1", NodeUID: "n1-uid",
			},
		}
		if mutate != nil {
			mutate(&r.Spec)
		}
		return r
	}
	const gvr = "certificates.k8s.io/v1/podcertificaterequests"
	create := func(mutate func(*certificatesv1.PodCertificateRequestSpec)) *admission.Attributes {
		return req(admission.Create, gvr, "", "ns", "r", pcr(mutate), nil)
	}
	const prefix = `podcertificaterequests.certificates.k8s.io "r" is forbidden: `
	runAdmit(t, p, []admitCase{
		{name: "own pod", a: create(nil)},
		{name: "own pod, v1beta1", a: req(admission.Create, "certificates.k8s.io/v1beta1/podcertificaterequests", "", "ns", "r",
			&certificatesv1beta1.PodCertificateRequest{Spec: certificatesv1beta1.PodCertificateRequestSpec{
				PodName: "mine", PodUID: "mine-uid", ServiceAccountName: "sa", ServiceAccountUID: "sa-uid", NodeName: "n1", NodeUID: "n1-uid"}}, nil)},
		{name: "another node named", a: create(func(s *certificatesv1.PodCertificateRequestSpec) { s.NodeName = "n2" }),
			want: prefix + `PodCertificateRequest.Spec.NodeName="n2", which is not the requesting node "n1"`},
		{name: "stale node UID", a: create(func(s *certificatesv1.PodCertificateRequestSpec) { s.NodeUID = "old" }), plain: true,
			want: `PodCertificateRequest for pod "ns/mine" names node UID "old", inconsistent with the running node ("n1-uid")`},
		{name: "pod missing", a: create(func(s *certificatesv1.PodCertificateRequestSpec) { s.PodName = "gone" }), plain: true,
			want: `while retrieving pod "ns/gone" named in the PodCertificateRequest: pod "gone" not found`},
		{name: "pod lookup fails", a: create(func(s *certificatesv1.PodCertificateRequestSpec) { s.PodName = "broken" }),
			want: prefix + `while retrieving pod "ns/broken" named in the PodCertificateRequest: boom`},
		{name: "stale pod UID", a: create(func(s *certificatesv1.PodCertificateRequestSpec) { s.PodUID = "old" }), plain: true,
			want: `PodCertificateRequest for pod "ns/mine" contains pod UID ("old") which differs from running pod "mine-uid"`},
		{name: "pod of another node", a: create(func(s *certificatesv1.PodCertificateRequestSpec) { s.PodName, s.PodUID = "theirs", "theirs-uid" }),
			want: prefix + `pod "ns/theirs" is not running on node "n1" named in the PodCertificateRequest`},
		{name: "mirror pod", a: create(func(s *certificatesv1.PodCertificateRequestSpec) { s.PodName, s.PodUID = "mirror", "mirror-uid" }),
			want: prefix + `pod "ns/mirror" is a mirror pod`},
		{name: "another service account", a: create(func(s *certificatesv1.PodCertificateRequestSpec) { s.ServiceAccountName = "admin" }),
			want: prefix + `PodCertificateRequest for pod "ns/mine" contains serviceAccountName ("admin") that differs from running pod ("sa")`},
		{name: "service account missing", a: create(func(s *certificatesv1.PodCertificateRequestSpec) {
			s.PodName, s.PodUID, s.ServiceAccountName = "nosa", "nosa-uid", "gone"
		}), plain: true, want: `while retrieving service account "ns/gone" named in the PodCertificateRequest: serviceaccount "gone" not found`},
		{name: "stale service account UID", a: create(func(s *certificatesv1.PodCertificateRequestSpec) { s.ServiceAccountUID = "old" }), plain: true,
			want: `PodCertificateRequest for pod "ns/mine" names service account UID "old", which differs from the running service account ("sa-uid")`},
		{name: "update", a: req(admission.Update, gvr, "", "ns", "r", pcr(nil), pcr(nil)),
			want: prefix + `unexpected operation UPDATE`},
		{name: "status", a: req(admission.Create, gvr, "status", "ns", "r", pcr(nil), nil),
			want: prefix + `unexpected subresource status`},
		{name: "not a request", a: req(admission.Create, gvr, "", "ns", "r", &corev1.Pod{}, nil),
			want: prefix + `unexpected type *v1.Pod`},
		{name: "node not registered", a: by(nodeUser("n3"), create(func(s *certificatesv1.PodCertificateRequestSpec) { s.NodeName = "n3" })), plain: true,
			want: `while retrieving node "n3" named in the PodCertificateRequest: node "n3" not found`},
	})
}

package validation

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"testing"

	certificatesv1 "k8s.io/api/certificates/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestStorageKinds(t *testing.T) {
	tests := []struct {
		name string
		obj  runtime.Object
		want []string
	}{
		{"storage class valid", defaulted(&storagev1.StorageClass{ObjectMeta: om("fast"), Provisioner: "ebs.csi.aws.com"}), nil},
		{"storage class without provisioner", defaulted(&storagev1.StorageClass{ObjectMeta: om("fast")}),
			[]string{`provisioner: Required value`}},
		{"storage class bad modes", &storagev1.StorageClass{ObjectMeta: om("fast"), Provisioner: "p",
			ReclaimPolicy: ptr(corev1.PersistentVolumeReclaimRecycle), VolumeBindingMode: ptr(storagev1.VolumeBindingMode("Later"))},
			[]string{
				`reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"`,
				`volumeBindingMode: Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"`,
			}},
		{"csi driver valid", defaulted(&storagev1.CSIDriver{ObjectMeta: om("ebs.csi.aws.com")}), nil},
		{"csi driver name too long", defaulted(&storagev1.CSIDriver{ObjectMeta: om("a234567890123456789012345678901234567890123456789012345678901234")}),
			[]string{`name: Too long: may not be more than 63 bytes`}},
		{"csi driver bad policy", defaulted(&storagev1.CSIDriver{ObjectMeta: om("d"), Spec: storagev1.CSIDriverSpec{FSGroupPolicy: ptr(storagev1.FSGroupPolicy("Some"))}}),
			[]string{`spec.fsGroupPolicy: Unsupported value: "Some": supported values: "File", "None", "ReadWriteOnceWithFSType"`}},
		{"csi node duplicate drivers", &storagev1.CSINode{ObjectMeta: om("n"), Spec: storagev1.CSINodeSpec{Drivers: []storagev1.CSINodeDriver{{Name: "d", NodeID: "1"}, {Name: "d"}}}},
			[]string{`spec.drivers[1].nodeID: Required value`, `spec.drivers[1].name: Duplicate value: "d"`}},
		{"volume attachment without source", &storagev1.VolumeAttachment{ObjectMeta: om("va"), Spec: storagev1.VolumeAttachmentSpec{Attacher: "d"}},
			[]string{`spec.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName`, `spec.nodeName: Required value`}},
		{"lease", &coordinationv1.Lease{ObjectMeta: omNS("l", "ns"), Spec: coordinationv1.LeaseSpec{LeaseDurationSeconds: ptr(int32(0)), PreferredHolder: ptr("x")}},
			[]string{`spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0`, "spec.preferredHolder: Forbidden: may only be specified if `strategy` is defined"}},
		{"lease strategy", &coordinationv1.Lease{ObjectMeta: omNS("l", "ns"), Spec: coordinationv1.LeaseSpec{Strategy: ptr(coordinationv1.CoordinatedLeaseStrategy("Newest"))}},
			[]string{`spec.strategy: Unsupported value: "Newest": supported values: "OldestEmulationVersion"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			expectErrors(t, Create(tc.obj), tc.want)
		})
	}

	old := defaulted(&storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "fast", ResourceVersion: "1"}, Provisioner: "p", Parameters: map[string]string{"type": "gp3"}})
	sc := old.DeepCopy()
	sc.Parameters["type"] = "io2"
	sc.Provisioner = "q"
	expectErrors(t, Update(sc, old), []string{
		`parameters: Invalid value: null: field is immutable`,
		`provisioner: Invalid value: null: field is immutable`,
	})
}

func csrPEM(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "alice"}}, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
}

func TestCertificateSigningRequest(t *testing.T) {
	good := csrPEM(t)
	tests := []struct {
		name string
		spec certificatesv1.CertificateSigningRequestSpec
		want []string
	}{
		{"valid", certificatesv1.CertificateSigningRequestSpec{Request: good, SignerName: "kubernetes.io/kube-apiserver-client", Usages: []certificatesv1.KeyUsage{"client auth"}}, nil},
		{"not a PEM request", certificatesv1.CertificateSigningRequestSpec{Request: []byte("x"), SignerName: "example.com/s", Usages: []certificatesv1.KeyUsage{"client auth"}},
			[]string{`spec.request: Invalid value: "eA==": PEM block type must be CERTIFICATE REQUEST`}},
		{"usages and signer", certificatesv1.CertificateSigningRequestSpec{Request: good, SignerName: "signer", Usages: []certificatesv1.KeyUsage{"flying", "client auth", "client auth"}, ExpirationSeconds: ptr(int32(60))},
			[]string{
				`spec.usages[0]: Unsupported value: "flying": supported values: "any", "cert sign", "client auth", "code signing", "content commitment", "crl sign", "data encipherment", "decipher only", "digital signature", "email protection", "encipher only", "ipsec end system", "ipsec tunnel", "ipsec user", "key agreement", "key encipherment", "microsoft sgc", "netscape sgc", "ocsp signing", "s/mime", "server auth", "signing", "timestamping"`,
				`spec.usages[2]: Duplicate value: "client auth"`,
				`spec.signerName: Invalid value: "signer": must be a fully qualified domain and path of the form 'example.com/signer-name'`,
				`spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 600 seconds (10 minutes)`,
			}},
		{"signer without dot", certificatesv1.CertificateSigningRequestSpec{Request: good, SignerName: "example/x", Usages: []certificatesv1.KeyUsage{"client auth"}},
			[]string{`spec.signerName: Invalid value: "example": should be a domain with at least two segments separated by dots`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			expectErrors(t, Create(&certificatesv1.CertificateSigningRequest{ObjectMeta: om("csr"), Spec: tc.spec}), tc.want)
		})
	}
}

func TestEventsV1(t *testing.T) {
	valid := func() *eventsv1.Event {
		return &eventsv1.Event{
			ObjectMeta: omNS("e", "ns"), EventTime: metav1.NowMicro(), Type: "Normal",
			ReportingController: "example.com/ctl", ReportingInstance: "i", Action: "Start", Reason: "Started",
			Regarding: corev1.ObjectReference{Namespace: "ns"},
		}
	}
	expectErrors(t, Create(valid()), nil)
	e := valid()
	e.Type = "Info"
	e.DeprecatedCount = 3
	e.Name = "Bad:Name"
	expectErrors(t, Create(e), []string{
		`metadata.name: Invalid value: "Bad:Name": ` + subdomainMsg,
		`type: Invalid value: "": has invalid value: Info`,
		`count: Invalid value: "": needs to be unset`,
	})
	old := valid()
	old.ResourceVersion = "1"
	upd := old.DeepCopy()
	upd.Note = "changed"
	expectErrors(t, Update(upd, old), []string{`message: Invalid value: "changed": field is immutable`})
}

func TestDispatch(t *testing.T) {
	var nilPod *corev1.Pod
	tests := []struct {
		name string
		errs field.ErrorList
		want error
	}{
		{"nil", Create(nil), ErrNilObject},
		{"typed nil", Create(nilPod), ErrNilObject},
		{"unsupported", Create(&corev1.RangeAllocation{}), ErrUnsupportedType},
		{"update type mismatch", Update(&corev1.Pod{}, &corev1.Service{}), ErrTypeMismatch},
		{"update unsupported", Update(&corev1.RangeAllocation{}, &corev1.RangeAllocation{}), ErrUnsupportedType},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if len(tc.errs) != 1 || tc.errs[0].Type != field.ErrorTypeInternal {
				t.Fatalf("want one internal error, got %v", tc.errs)
			}
			if err, ok := tc.errs[0].BadValue.(error); !ok || !errors.Is(err, tc.want) {
				t.Fatalf("want %v, got %v", tc.want, tc.errs[0].BadValue)
			}
		})
	}

	// Kinds without special update rules still get the metadata rules.
	old := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "sa", Namespace: "ns", ResourceVersion: "1", UID: "u1"}}
	sa := old.DeepCopy()
	sa.UID = "u2"
	expectErrors(t, Update(sa, old), []string{`metadata.uid: Invalid value: "u2": field is immutable`})

	// Every update checks metadata, also where the kind's own rules do not.
	oldNS := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team", ResourceVersion: "1"}}
	ns := oldNS.DeepCopy()
	ns.Labels = map[string]string{"bad key!": "x"}
	ns.ResourceVersion = ""
	expectErrors(t, Update(ns, oldNS), []string{
		`metadata.resourceVersion: Invalid value: "": must be specified for an update`,
		`metadata.labels: Invalid value: "bad key!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
	})
}

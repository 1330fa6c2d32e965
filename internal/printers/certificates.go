package printers

import (
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
)

// certificatesPrinters covers certificates.k8s.io/v1.
func certificatesPrinters() []registration {
	return []registration{cellsPrinter(csrColumns, csrCells), cellsPrinter(clusterTrustBundleColumns, clusterTrustBundleCells)}
}

var csrSpecDoc = certificatesv1.CertificateSigningRequestSpec{}.SwaggerDoc()

var csrColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	ageColumn(),
	column("SignerName", "string", csrSpecDoc["signerName"]),
	column("Requestor", "string", csrSpecDoc["username"]),
	column("RequestedDuration", "string", csrSpecDoc["expirationSeconds"]),
	column("Condition", "string", certificatesv1.CertificateSigningRequestStatus{}.SwaggerDoc()["conditions"]),
}

func csrCells(csr *certificatesv1.CertificateSigningRequest, now time.Time) []any {
	requested := none
	if s := csr.Spec.ExpirationSeconds; s != nil {
		requested = duration.HumanDuration(time.Duration(*s) * time.Second)
	}
	return []any{
		csr.Name, since(csr.CreationTimestamp, now), orNone(csr.Spec.SignerName), csr.Spec.Username,
		requested, csrCondition(csr),
	}
}

// csrCondition is Denied, Approved or Pending (in that precedence), then
// Failed and Issued when they apply: "Approved,Issued".
func csrCondition(csr *certificatesv1.CertificateSigningRequest) string {
	var approved, denied, failed bool
	for _, c := range csr.Status.Conditions {
		switch c.Type {
		case certificatesv1.CertificateApproved:
			approved = true
		case certificatesv1.CertificateDenied:
			denied = true
		case certificatesv1.CertificateFailed:
			failed = true
		}
	}
	status := "Pending"
	switch {
	case denied:
		status = "Denied"
	case approved:
		status = "Approved"
	}
	if failed {
		status += ",Failed"
	}
	if len(csr.Status.Certificate) > 0 {
		status += ",Issued"
	}
	return status
}

var clusterTrustBundleColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	column("SignerName", "string", certificatesv1.ClusterTrustBundleSpec{}.SwaggerDoc()["signerName"]),
}

func clusterTrustBundleCells(b *certificatesv1.ClusterTrustBundle, _ time.Time) []any {
	return []any{b.Name, orNone(b.Spec.SignerName)}
}

package authenticationtrust

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// store holds the one ConfigMap and counts writes.
type store struct {
	cm     *corev1.ConfigMap
	writes int
}

func (s *store) read(_ context.Context, _, name string) (*corev1.ConfigMap, error) {
	if s.cm == nil {
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "configmaps"}, name)
	}
	return s.cm.DeepCopy(), nil
}

func (s *store) Create(_ context.Context, obj runtime.Object, _ string) (runtime.Object, error) {
	if s.cm != nil {
		return nil, apierrors.NewAlreadyExists(schema.GroupResource{Resource: "configmaps"}, Name)
	}
	s.cm = obj.(*corev1.ConfigMap).DeepCopy()
	s.cm.ResourceVersion = "1"
	s.writes++
	return s.cm, nil
}

func (s *store) Apply(_ context.Context, obj runtime.Object, _ string) (runtime.Object, error) {
	s.cm = obj.(*corev1.ConfigMap).DeepCopy()
	s.writes++
	return s.cm, nil
}

func caPEM(t *testing.T, cn string, notAfter time.Time) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: cn},
		NotBefore: notAfter.Add(-48 * time.Hour), NotAfter: notAfter, IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func TestSyncPublishesAndCombines(t *testing.T) {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	mine, proxy := caPEM(t, "mine", now.Add(time.Hour)), caPEM(t, "proxy", now.Add(time.Hour))
	other, expired := caPEM(t, "other", now.Add(time.Hour)), caPEM(t, "expired", now.Add(-6*time.Minute))
	tests := []struct {
		name   string
		info   Info
		stored map[string]string
		want   map[string]string
	}{{
		name: "client CA only",
		info: Info{ClientCA: mine},
		want: map[string]string{"client-ca-file": string(mine)},
	}, {
		name: "front proxy",
		info: Info{ClientCA: mine, RequestHeaderCA: proxy, RequestHeaderAllowed: []string{"front-proxy"},
			RequestHeaderUsernames: []string{"X-Remote-User"}, RequestHeaderGroups: []string{"X-Remote-Group"},
			RequestHeaderExtras: []string{"X-Remote-Extra-"}},
		want: map[string]string{
			"client-ca-file": string(mine), "requestheader-client-ca-file": string(proxy),
			"requestheader-allowed-names": `["front-proxy"]`, "requestheader-username-headers": `["X-Remote-User"]`,
			"requestheader-group-headers": `["X-Remote-Group"]`, "requestheader-extra-headers-prefix": `["X-Remote-Extra-"]`,
		},
	}, {
		name: "empty lists are published as []",
		info: Info{RequestHeaderCA: proxy},
		want: map[string]string{
			"requestheader-client-ca-file": string(proxy), "requestheader-allowed-names": `[]`,
			"requestheader-username-headers": `[]`, "requestheader-group-headers": `[]`, "requestheader-extra-headers-prefix": `[]`,
		},
	}, {
		name: "another server's authorities and headers stay; expired ones go",
		info: Info{ClientCA: mine, RequestHeaderCA: proxy, RequestHeaderUsernames: []string{"X-Remote-User"}, RequestHeaderUIDs: []string{"X-Remote-Uid"}},
		stored: map[string]string{
			"client-ca-file": string(other) + string(expired) + string(mine), "requestheader-client-ca-file": string(proxy),
			"requestheader-username-headers": `["X-Other-User","X-Remote-User"]`,
		},
		want: map[string]string{
			"client-ca-file": string(other) + string(mine), "requestheader-client-ca-file": string(proxy),
			"requestheader-username-headers": `["X-Other-User","X-Remote-User"]`, "requestheader-uid-headers": `["X-Remote-Uid"]`,
			"requestheader-allowed-names": `[]`, "requestheader-group-headers": `[]`, "requestheader-extra-headers-prefix": `[]`,
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &store{}
			if tt.stored != nil {
				s.cm = &corev1.ConfigMap{Data: tt.stored}
				s.cm.Namespace, s.cm.Name, s.cm.ResourceVersion = Namespace, Name, "7"
			}
			c := New(tt.info, s.read, s, nil)
			c.now = func() time.Time { return now }
			if err := c.Sync(context.Background()); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, s.cm.Data); diff != "" {
				t.Errorf("data (-want +got):\n%s", diff)
			}
			writes := s.writes
			if err := c.Sync(context.Background()); err != nil {
				t.Fatal(err)
			}
			if s.writes != writes {
				t.Errorf("a second sync with nothing changed wrote again")
			}
		})
	}
}

func TestSyncRefusesDamagedData(t *testing.T) {
	s := &store{cm: &corev1.ConfigMap{Data: map[string]string{
		"requestheader-client-ca-file": "", "requestheader-username-headers": "not json"}}}
	s.cm.ResourceVersion = "3"
	c := New(Info{RequestHeaderCA: caPEM(t, "proxy", time.Now().Add(time.Hour))}, s.read, s, nil)
	if err := c.Sync(context.Background()); err == nil {
		t.Fatal("damaged stored header list accepted")
	}
	if s.writes != 0 {
		t.Error("wrote over damaged data")
	}
}

package authenticationtrust

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"log/slog"
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Name and Namespace are the published ConfigMap's.
const (
	Name      = "extension-apiserver-authentication"
	Namespace = metav1.NamespaceSystem
	// Manager is the field manager of the writes, kube-apiserver's own.
	Manager = "kube-apiserver"
	resync  = time.Minute
)

// Info is what this server requires to be published. PEM bundles; an
// empty RequestHeaderCA publishes no front-proxy settings.
type Info struct {
	ClientCA               []byte
	RequestHeaderCA        []byte
	RequestHeaderAllowed   []string
	RequestHeaderUsernames []string
	RequestHeaderUIDs      []string
	RequestHeaderGroups    []string
	RequestHeaderExtras    []string
}

// Reader reads the stored ConfigMap (objects.Objects.GetConfigMap-shaped:
// a missing one is NotFound).
type Reader func(ctx context.Context, ns, name string) (*corev1.ConfigMap, error)

// Writer writes through the API (the REST handler's in-process client):
// Create for a new object, Apply to replace one at its resourceVersion.
type Writer interface {
	Create(ctx context.Context, obj runtime.Object, manager string) (runtime.Object, error)
	Apply(ctx context.Context, obj runtime.Object, manager string) (runtime.Object, error)
}

// Controller keeps the ConfigMap current.
type Controller struct {
	info Info
	read Reader
	w    Writer
	log  *slog.Logger
	now  func() time.Time
}

// New returns the controller publishing info.
func New(info Info, read Reader, w Writer, log *slog.Logger) *Controller {
	return &Controller{info: info, read: read, w: w, log: log, now: time.Now}
}

// Sync writes the combined data when it differs from what is stored.
func (c *Controller) Sync(ctx context.Context) error {
	stored, err := c.read(ctx, Namespace, Name)
	if apierrors.IsNotFound(err) {
		stored = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: Namespace, Name: Name}}
	} else if err != nil {
		return fmt.Errorf("reading %s/%s: %w", Namespace, Name, err)
	}
	data, err := c.combined(stored.Data)
	if err != nil {
		return err
	}
	if maps.Equal(data, stored.Data) {
		return nil
	}
	cm := stored.DeepCopy()
	cm.Data = data
	if cm.ResourceVersion == "" {
		_, err = c.w.Create(ctx, cm, Manager)
	} else {
		_, err = c.w.Apply(ctx, cm, Manager)
	}
	if err != nil {
		return fmt.Errorf("writing %s/%s: %w", Namespace, Name, err)
	}
	return nil
}

// Run syncs every minute until ctx ends.
func (c *Controller) Run(ctx context.Context) {
	tick := time.NewTicker(resync)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if err := c.Sync(ctx); err != nil && ctx.Err() == nil {
				c.log.Error("publishing authentication info", "err", err)
			}
		}
	}
}

// combined is the ConfigMap data of the stored data merged with c.info.
func (c *Controller) combined(stored map[string]string) (map[string]string, error) {
	data := map[string]string{}
	clientCA, err := c.mergeCAs(stored["client-ca-file"], c.info.ClientCA)
	if err != nil {
		return nil, fmt.Errorf("client-ca-file: %w", err)
	}
	if len(clientCA) > 0 {
		data["client-ca-file"] = string(clientCA)
	}
	var rhCA []byte
	if stored["requestheader-client-ca-file"] != "" || len(c.info.RequestHeaderCA) > 0 {
		if rhCA, err = c.mergeCAs(stored["requestheader-client-ca-file"], c.info.RequestHeaderCA); err != nil {
			return nil, fmt.Errorf("requestheader-client-ca-file: %w", err)
		}
	}
	if len(rhCA) == 0 {
		return data, nil
	}
	data["requestheader-client-ca-file"] = string(rhCA)
	for _, l := range []struct {
		key  string
		mine []string
		// optional lists are published only when not empty.
		optional bool
	}{
		{"requestheader-username-headers", c.info.RequestHeaderUsernames, false},
		{"requestheader-uid-headers", c.info.RequestHeaderUIDs, true},
		{"requestheader-group-headers", c.info.RequestHeaderGroups, false},
		{"requestheader-extra-headers-prefix", c.info.RequestHeaderExtras, false},
		{"requestheader-allowed-names", c.info.RequestHeaderAllowed, false},
	} {
		var have []string
		if s := stored[l.key]; s != "" {
			if err := json.Unmarshal([]byte(s), &have); err != nil {
				return nil, fmt.Errorf("%s: %w", l.key, err)
			}
		}
		merged := mergeStrings(have, l.mine)
		if l.optional && len(merged) == 0 {
			continue
		}
		b, err := json.Marshal(merged)
		if err != nil {
			return nil, err
		}
		data[l.key] = string(b)
	}
	return data, nil
}

// mergeStrings is a then b without duplicates, never nil (published as []).
func mergeStrings(a, b []string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, s := range append(append([]string(nil), a...), b...) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// mergeCAs is the PEM bundle of the certificates of stored and mine,
// without duplicates and without those expired more than five minutes ago.
func (c *Controller) mergeCAs(stored string, mine []byte) ([]byte, error) {
	var certs []*x509.Certificate
	for _, bundle := range [][]byte{[]byte(stored), mine} {
		parsed, err := parsePEM(bundle)
		if err != nil {
			return nil, err
		}
		certs = append(certs, parsed...)
	}
	cutoff := c.now().Add(-5 * time.Minute)
	var out bytes.Buffer
	var kept [][]byte
	for _, cert := range certs {
		if !cert.NotAfter.After(cutoff) || containsRaw(kept, cert.Raw) {
			continue
		}
		kept = append(kept, cert.Raw)
		if err := pem.Encode(&out, &pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}); err != nil {
			return nil, err
		}
	}
	return out.Bytes(), nil
}

func containsRaw(list [][]byte, raw []byte) bool {
	for _, r := range list {
		if bytes.Equal(r, raw) {
			return true
		}
	}
	return false
}

// parsePEM parses every CERTIFICATE block of b.
func parsePEM(b []byte) ([]*x509.Certificate, error) {
	var out []*x509.Certificate
	for {
		var block *pem.Block
		block, b = pem.Decode(b)
		if block == nil {
			return out, nil
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
}

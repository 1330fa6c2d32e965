package config

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"
)

// kube-apiserver's defaults for a KMS provider.
const (
	defaultKMSTimeout    = 3 * time.Second
	defaultKMSAPIVersion = kmsV1
	defaultKMSCacheSize  = int32(1000) // KMS v1 only
)

const (
	kmsV1 = "v1"
	kmsV2 = "v2"
)

// setDefaults fills in what kube-apiserver defaults before validating.
func setDefaults(c *apiserverv1.EncryptionConfiguration) {
	for i := range c.Resources {
		for j := range c.Resources[i].Providers {
			if k := c.Resources[i].Providers[j].KMS; k != nil {
				defaultKMS(k)
			}
		}
	}
}

func defaultKMS(k *apiserverv1.KMSConfiguration) {
	if k.Timeout == nil {
		k.Timeout = &metav1.Duration{Duration: defaultKMSTimeout}
	}
	if k.APIVersion == "" {
		k.APIVersion = defaultKMSAPIVersion
	}
	// The cache holds KMS v1 DEKs; v2 has none, and validation refuses a
	// cache size there, so only v1 gets one.
	if k.CacheSize == nil && k.APIVersion == kmsV1 {
		size := defaultKMSCacheSize
		k.CacheSize = &size
	}
}

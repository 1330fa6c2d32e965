// Package aes holds the aesgcm and aescbc providers of
// EncryptionConfiguration, laid out on disk as kube-apiserver lays them out:
// a random nonce (GCM) or IV (CBC) followed by the ciphertext.
//
// GCM authenticates both the value and its storage key; CBC authenticates
// neither, which is why the Kubernetes documentation recommends against it
// for new clusters. It is kept for configurations that carry over.
package aes

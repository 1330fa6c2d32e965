// Package secretbox holds the secretbox provider of EncryptionConfiguration
// (XSalsa20 and Poly1305 with a 32-byte key), laid out on disk as
// kube-apiserver lays it out: a random 24-byte nonce followed by the box.
package secretbox

package configfile

import (
	"crypto/sha256"
	"encoding/hex"
)

// Hash is kube-apiserver's hash of configuration content and of the
// server's identity in metric labels: "sha256:<hex>", "" for nothing.
func Hash(data []byte) string {
	if len(data) == 0 {
		return ""
	}
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

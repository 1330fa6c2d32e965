// Command webhook is a conversion webhook for
// gizmos.conversion.example.com, the example of docs/crd-conversion.md:
// v1 spec.size (a string) is v2 spec.sizeInt (an integer). It serves TLS
// on -addr with a self-signed certificate for 127.0.0.1, which it writes
// to -ca for the CRD's caBundle.
package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"flag"
	"log"
	"math/big"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8443", "address to serve on")
	caFile := flag.String("ca", "gizmohook-ca.pem", "where to write the certificate")
	flag.Parse()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), NotBefore: time.Now(), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		log.Fatal(err)
	}
	http.HandleFunc("/convert", convert)
	srv := &http.Server{Addr: *addr, TLSConfig: &tls.Config{
		Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}},
	}}
	log.Fatal(srv.ListenAndServeTLS("", ""))
}

// convert answers a ConversionReview: every object in the desired
// version, with the same metadata.
func convert(w http.ResponseWriter, r *http.Request) {
	var review struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Request    struct {
			UID               string           `json:"uid"`
			DesiredAPIVersion string           `json:"desiredAPIVersion"`
			Objects           []map[string]any `json:"objects"`
		} `json:"request"`
	}
	if err := json.NewDecoder(r.Body).Decode(&review); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	converted := []map[string]any{}
	for _, obj := range review.Request.Objects {
		obj["apiVersion"] = review.Request.DesiredAPIVersion
		spec, _ := obj["spec"].(map[string]any)
		if s, ok := spec["size"].(string); ok {
			spec["sizeInt"], _ = strconv.Atoi(s)
			delete(spec, "size")
		} else if n, ok := spec["sizeInt"].(float64); ok {
			spec["size"] = strconv.Itoa(int(n))
			delete(spec, "sizeInt")
		}
		converted = append(converted, obj)
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"apiVersion": review.APIVersion, "kind": review.Kind,
		"response": map[string]any{
			"uid": review.Request.UID, "convertedObjects": converted,
			"result": map[string]any{"status": "Success"},
		},
	})
}

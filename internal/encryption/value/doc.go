// Package value defines how an encryption provider turns a stored value
// into plaintext and back, and the prefix chain that picks the provider of
// a stored value from the prefix written in front of it
// ("k8s:enc:aesgcm:v1:key1:", as in kube-apiserver).
package value

// Command kubectl is an unmodified kubectl built from the k8s.io/kubectl
// module at the version in go.mod. The end-to-end tests drive portcullis
// with it so that they exercise exactly what users run; it is not shipped.
package main

// Package policytest holds what the tests of the admission policy
// plugins (ValidatingAdmissionPolicy and MutatingAdmissionPolicy) share:
// a store of namespaces and param objects, pod requests, and the shapes
// and loops of their scaling benchmarks. Only tests import it.
package policytest

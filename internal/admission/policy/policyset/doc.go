// Package policyset holds the compiled admission policies and bindings of
// one plugin (ValidatingAdmissionPolicy or MutatingAdmissionPolicy) and
// the immutable snapshot requests read.
//
// # Compiled policies
//
// Both plugins' policies have a failure policy, matchConstraints, a
// paramKind, variables and match conditions, and their bindings a
// policyName, matchResources and a paramRef: CompilePolicy and
// CompileBinding compile those parts once, at load time, into a Policy and
// a Binding, which each plugin's compiled types embed beside what only
// they have (validations and audit annotations, or mutations). The
// policy's Compiler then compiles the plugin's own expressions with the
// policy's variables.
//
// # The set
//
// A Handler is a plugin's informer.Handler: it compiles the policies and
// bindings it is given into a Set, and recompiles a policy only when its
// spec changed. The Set's snapshot holds the policies that have bindings,
// indexed by what they match, each with its bindings indexed the same
// way, both in name order. Changes mark the set dirty; the next request
// rebuilds the snapshot once.
package policyset

// Package params finds the param objects a policy binding refers to: the
// paramKind of the policy names their kind, the paramRef of the binding
// names one object or selects several, in the request's namespace unless
// it says otherwise. Collect follows kube-apiserver's rules and error
// texts; a Source, which the server provides from its store or informers,
// does the reading.
package params

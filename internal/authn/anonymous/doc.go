// Package anonymous decides which requests that carry no credential are
// served as the user system:anonymous in the group system:unauthenticated.
//
// Anonymous access is on by default (--anonymous-auth=true, as
// kube-apiserver). An AuthenticationConfiguration may instead configure it
// with anonymous.enabled and anonymous.conditions[].path, restricting it
// to exact request paths; the flag and the file's anonymous field cannot
// both be given. Requests whose credential was presented and rejected are
// never anonymous: WithFallback only tries anonymous when the chain
// neither recognised a credential nor failed.
package anonymous

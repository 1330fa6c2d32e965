// Package audit records what the API server was asked to do, by whom, and
// how it answered, as audit.k8s.io/v1 Events, following kube-apiserver's
// audit pipeline.
//
// # Policy
//
// LoadPolicy (or ParsePolicy) decodes an audit.k8s.io/v1 Policy strictly,
// validates it with field paths and compiles it. Policy.Evaluate walks the
// rules in order for a request and returns a Decision: the level, the
// stages to omit and whether managed fields are dropped. The first matching
// rule wins; a request no rule matches is not audited (LevelNone).
//
// # Events
//
// A Recorder carries one request's Event through its stages:
// RequestReceived when it is created, ResponseStarted when a long-running
// request (watch, exec, logs, ...) writes its first byte, then
// ResponseComplete, or Panic if the handler panicked. Each stage is handed
// to a Sink; Logger is the Sink that writes JSON lines to a file or stdout,
// with kube-apiserver's size-based rotation.
//
// # Wiring
//
// Middleware evaluates the policy for every request after the request state
// (request.Info, user, audit ID) is known, creates the Recorder, puts it in
// the context for later stages (RecorderFrom) and closes it when the handler
// returns. Handlers add the request and response bodies through the
// Recorder; the body is kept only at the levels that ask for it.
package audit

// Package eventratelimit is the EventRateLimit admission plugin: it
// refuses core Events beyond the rates its configuration allows, so that a
// component flooding the server with events cannot swamp the store.
//
// # Configuration
//
// The plugin's configuration is an eventratelimit.admission.k8s.io/v1alpha1
// Configuration, decoded strictly by Decode and checked by Validate with
// kube-apiserver's messages. It lists limits, each of a type that says
// what one token bucket is shared by: Server (all events), Namespace (the
// request's namespace), User (the requester's name) or SourceAndObject (the
// event's source and involved object). qps and burst size each bucket;
// every type but Server keeps its buckets in an LRU cache of cacheSize
// entries (4096 when unset), and a bucket pushed out of the cache comes
// back full. No configuration at all is invalid: at least one limit is
// required.
//
// # Admission
//
// Like kube-apiserver's plugin, this is a validating plugin only. It looks
// at creates and updates of Events of the core group (events.k8s.io Events
// are not limited) that are not dry runs. Every limit takes a token from
// its bucket, whether or not an earlier limit refused, and any empty bucket
// refuses the request with 429 TooManyRequests naming every limit reached:
// "Too many requests: limit reached on type Namespace for key default".
//
// The clock is injected so that refilling can be tested without waiting.
package eventratelimit

package openapi

// fallbackDocs describes the definitions whose Go types carry no
// SwaggerDoc: the wrapper types with their own JSON form, documented in
// their source comments only, and the watch event.
var fallbackDocs = map[string]map[string]string{
	"io.k8s.apimachinery.pkg.api.resource.Quantity": {
		"": "Quantity is a fixed-point number with an optional decimal (k, M, G, ...), binary (Ki, Mi, Gi, ...) or exponent (e3) suffix, such as 100m, 1.5Gi or 2e3. It is written as a string in JSON and YAML; a plain number is accepted too.",
	},
	"io.k8s.apimachinery.pkg.util.intstr.IntOrString": {
		"": "IntOrString holds either an integer or a string, and is written in JSON and YAML as the one it holds: a port number or a port name, a count or a percentage.",
	},
	"io.k8s.apimachinery.pkg.apis.meta.v1.Time": {
		"": "Time is a timestamp, written in RFC 3339 form with second precision (2006-01-02T15:04:05Z).",
	},
	"io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime": {
		"": "MicroTime is a timestamp, written in RFC 3339 form with microsecond precision (2006-01-02T15:04:05.000000Z).",
	},
	"io.k8s.apimachinery.pkg.apis.meta.v1.Duration": {
		"": "Duration is a span of time, written as a Go duration string such as 300ms, 90s or 1h30m.",
	},
	"io.k8s.apimachinery.pkg.runtime.RawExtension": {
		"": "RawExtension holds an embedded object of any kind, as JSON.",
	},
	"io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent": {
		"":       "WatchEvent is one event of a watch stream.",
		"type":   "Type of the event: ADDED, MODIFIED, DELETED, BOOKMARK or ERROR.",
		"object": "Object is what the event is about: the new state of the object for ADDED and MODIFIED, its last state for DELETED, an object that carries only the resource version reached for BOOKMARK, and a Status for ERROR.",
	},
}

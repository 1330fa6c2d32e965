package tracing

import (
	"net/http"
	"slices"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/portcullis/portcullis/internal/request"
)

// Propagators carry trace context in W3C traceparent and baggage headers,
// as kube-apiserver's do.
func Propagators() propagation.TextMapPropagator {
	return propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
}

// Middleware makes each request a span. It runs after authentication: a
// caller in system:masters or system:monitoring continues the trace of
// the traceparent it sends; anyone else starts a new trace linked to it,
// so that unprivileged callers cannot force sampling or join traces.
func Middleware(next http.Handler, tp trace.TracerProvider) http.Handler {
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		span := trace.SpanFromContext(r.Context())
		if r.URL != nil {
			span.SetAttributes(attribute.String("http.target", r.URL.RequestURI()))
		}
		if st := request.StateFrom(r.Context()); st != nil {
			span.SetAttributes(attribute.String("audit-id", st.AuditID))
		}
		next.ServeHTTP(w, r)
	})
	return otelhttp.NewHandler(inner, "KubernetesAPI",
		otelhttp.WithTracerProvider(tp),
		otelhttp.WithPropagators(Propagators()),
		otelhttp.WithPublicEndpointFn(unprivileged),
		otelhttp.WithSpanNameFormatter(spanName),
	)
}

// spanName is kube-apiserver's: the method and the route with its
// namespace and name left as placeholders, or the method alone for
// non-resource requests.
func spanName(_ string, r *http.Request) string {
	st := request.StateFrom(r.Context())
	if st == nil || st.Info == nil || !st.Info.IsResourceRequest {
		return r.Method
	}
	info := st.Info
	name := "/" + info.APIPrefix
	if info.APIGroup != "" {
		name += "/" + info.APIGroup
	}
	name += "/" + info.APIVersion
	if info.Namespace != "" {
		name += "/namespaces/{:namespace}"
	}
	name += "/" + info.Resource
	if info.Name != "" {
		name += "/{:name}"
	}
	if info.Subresource != "" {
		name += "/" + info.Subresource
	}
	return r.Method + " " + name
}

func unprivileged(r *http.Request) bool {
	st := request.StateFrom(r.Context())
	if st == nil || st.User == nil {
		return true
	}
	groups := st.User.GetGroups()
	return !slices.Contains(groups, user.SystemPrivilegedGroup) && !slices.Contains(groups, user.MonitoringGroup)
}

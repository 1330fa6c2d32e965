package webhook

import (
	"net/http"
	"testing"

	"go.opentelemetry.io/otel/trace"

	"github.com/portcullis/portcullis/internal/admission"
)

// TestTraceContextReachesWebhooks: a traced request tells its webhooks
// its trace in a W3C traceparent header; an untraced one sends none.
func TestTraceContextReachesWebhooks(t *testing.T) {
	got := make(chan string, 2)
	srv := newServer(t, allow)
	inner := srv.Config.Handler
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Get("traceparent")
		inner.ServeHTTP(w, r)
	})
	v := validating(t, vhook("a.example.com", srv))

	ctx, _ := withState()
	if err := v.Validate(ctx, podAttrs(admission.Create, nil)); err != nil {
		t.Fatal(err)
	}
	if tp := <-got; tp != "" {
		t.Errorf("an untraced request sent traceparent %q", tp)
	}

	tid, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	sid, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled})
	ctx = trace.ContextWithSpanContext(ctx, sc)
	if err := v.Validate(ctx, podAttrs(admission.Create, nil)); err != nil {
		t.Fatal(err)
	}
	if tp, want := <-got, "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"; tp != want {
		t.Errorf("traceparent %q, want %q", tp, want)
	}
}

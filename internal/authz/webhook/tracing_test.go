package webhook

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/trace"
)

// TestTraceContextReachesWebhook: a traced request tells the authorization
// webhook its trace; an untraced one does not.
func TestTraceContextReachesWebhook(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.AuthorizedTTL = 0 })
	tid, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	sid, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	traced := trace.ContextWithSpanContext(context.Background(),
		trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled}))
	tests := []struct {
		name string
		ctx  context.Context
		user string
		want string
	}{
		{"untraced", context.Background(), "alice", ""},
		{"traced", traced, "bob", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, err := e.az.Authorize(tt.ctx, podsList(tt.user)); err != nil {
				t.Fatal(err)
			}
			e.hook.mu.Lock()
			got := e.hook.headers.Get("traceparent")
			e.hook.mu.Unlock()
			if got != tt.want {
				t.Errorf("traceparent %q, want %q", got, tt.want)
			}
		})
	}
}

package tracing

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// serviceName is the service.name of kube-apiserver's spans, kept so that
// dashboards built for it find ours.
const serviceName = "apiserver"

// Provider sends the server's spans to the collector in batches.
type Provider struct {
	tp *sdktrace.TracerProvider
}

// New returns a provider for cfg; serverID becomes service.instance.id.
// It does not wait for the collector: spans are sent in the background and
// dropped (with a log from the exporter) while it is away.
func New(ctx context.Context, cfg *Config, serverID string) (*Provider, error) {
	exp, err := otlptracegrpc.New(ctx, otlptracegrpc.WithEndpoint(cfg.Endpoint), otlptracegrpc.WithInsecure())
	if err != nil {
		return nil, fmt.Errorf("tracing: OTLP exporter for %s: %w", cfg.Endpoint, err)
	}
	res := resource.NewSchemaless(
		attribute.String("service.name", serviceName),
		attribute.String("service.instance.id", serverID),
	)
	// A request that continues a sampled trace is sampled; others start a
	// sampled trace at the configured rate.
	sampler := sdktrace.ParentBased(sdktrace.TraceIDRatioBased(float64(cfg.SamplingRatePerMillion) / maxRatePerMillion))
	return &Provider{tp: sdktrace.NewTracerProvider(
		sdktrace.WithSampler(sampler),
		sdktrace.WithBatcher(exp),
		sdktrace.WithResource(res),
	)}, nil
}

// TracerProvider is what instrumentation takes.
func (p *Provider) TracerProvider() trace.TracerProvider { return p.tp }

// ForceFlush sends the spans ended so far.
func (p *Provider) ForceFlush(ctx context.Context) error { return p.tp.ForceFlush(ctx) }

// Shutdown sends what is left and stops the exporter.
func (p *Provider) Shutdown(ctx context.Context) error { return p.tp.Shutdown(ctx) }

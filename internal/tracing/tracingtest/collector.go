package tracingtest

import (
	"context"
	"net"
	"strconv"
	"sync"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonv1 "go.opentelemetry.io/proto/otlp/common/v1"
	tracev1 "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
)

// Span is one received span, flattened.
type Span struct {
	Name         string
	TraceID      []byte
	SpanID       []byte
	ParentSpanID []byte
	Links        int
	// Attributes and Resource hold the string and integer attributes.
	Attributes map[string]string
	Resource   map[string]string
}

// Collector receives spans over OTLP gRPC.
type Collector struct {
	collectortrace.UnimplementedTraceServiceServer

	// Addr is host:port to export to.
	Addr string

	srv *grpc.Server
	mu  sync.Mutex
	got []Span
	// changed is closed and replaced whenever spans arrive.
	changed chan struct{}
}

// Start listens on a free port of 127.0.0.1 until Stop.
func Start() (*Collector, error) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	c := &Collector{Addr: lis.Addr().String(), srv: grpc.NewServer(), changed: make(chan struct{})}
	collectortrace.RegisterTraceServiceServer(c.srv, c)
	go func() { _ = c.srv.Serve(lis) }()
	return c, nil
}

// Stop ends the server.
func (c *Collector) Stop() { c.srv.Stop() }

// Export implements the OTLP trace service.
func (c *Collector) Export(_ context.Context, req *collectortrace.ExportTraceServiceRequest) (*collectortrace.ExportTraceServiceResponse, error) {
	var spans []Span
	for _, rs := range req.GetResourceSpans() {
		res := attrs(rs.GetResource().GetAttributes())
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				spans = append(spans, flatten(s, res))
			}
		}
	}
	c.mu.Lock()
	c.got = append(c.got, spans...)
	close(c.changed)
	c.changed = make(chan struct{})
	c.mu.Unlock()
	return &collectortrace.ExportTraceServiceResponse{}, nil
}

// Spans returns what was received so far, and a channel closed when more
// arrives.
func (c *Collector) Spans() ([]Span, <-chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Span(nil), c.got...), c.changed
}

func flatten(s *tracev1.Span, res map[string]string) Span {
	return Span{
		Name: s.GetName(), TraceID: s.GetTraceId(), SpanID: s.GetSpanId(), ParentSpanID: s.GetParentSpanId(),
		Links: len(s.GetLinks()), Attributes: attrs(s.GetAttributes()), Resource: res,
	}
}

func attrs(kvs []*commonv1.KeyValue) map[string]string {
	out := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		switch v := kv.GetValue().GetValue().(type) {
		case *commonv1.AnyValue_StringValue:
			out[kv.GetKey()] = v.StringValue
		case *commonv1.AnyValue_IntValue:
			out[kv.GetKey()] = strconv.FormatInt(v.IntValue, 10)
		}
	}
	return out
}

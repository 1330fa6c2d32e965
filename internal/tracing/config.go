package tracing

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"

	"github.com/portcullis/portcullis/internal/configfile"
)

var (
	// ErrDecode is a file that is not a TracingConfiguration.
	ErrDecode = errors.New("error decoding tracing configuration")
	// ErrInvalid is a TracingConfiguration that does not validate.
	ErrInvalid = errors.New("invalid tracing configuration")
)

const (
	// defaultEndpoint is the OTLP gRPC collector used when the file names
	// none: the OpenTelemetry default.
	defaultEndpoint   = "localhost:4317"
	maxRatePerMillion = 1000000
)

// fileType is what the file must declare: kube-apiserver reads it in
// three versions, whose TracingConfiguration types have the same fields.
var fileType = configfile.Type{
	Kind:     "TracingConfiguration",
	Versions: []string{"apiserver.config.k8s.io/v1", "apiserver.config.k8s.io/v1beta1", "apiserver.config.k8s.io/v1alpha1"},
}

// Config is a decoded and validated TracingConfiguration.
type Config struct {
	// Endpoint is the collector's address, host:port or a gRPC target.
	Endpoint string
	// SamplingRatePerMillion is how many requests in a million start a
	// sampled trace of their own; requests that continue a sampled trace
	// are always sampled.
	SamplingRatePerMillion int32
}

// Load reads and validates path.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--tracing-config-file: %w", err)
	}
	cfg, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("--tracing-config-file %s: %w", path, err)
	}
	return cfg, nil
}

// Parse decodes data strictly and validates it with kube-apiserver's
// rules and texts.
func Parse(data []byte) (*Config, error) {
	var tc apiserverv1.TracingConfiguration
	if err := fileType.Decode(data, &tc); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDecode, err)
	}
	cfg := &Config{Endpoint: defaultEndpoint}
	var errs field.ErrorList
	if r := tc.SamplingRatePerMillion; r != nil {
		p := field.NewPath("samplingRatePerMillion")
		if *r < 0 {
			errs = append(errs, field.Invalid(p, *r, "sampling rate must be positive"))
		}
		if *r > maxRatePerMillion {
			errs = append(errs, field.Invalid(p, *r, "sampling rate per million must be less than or equal to one million"))
		}
		cfg.SamplingRatePerMillion = *r
	}
	// An empty endpoint is the default one, as the OTLP exporter takes it.
	if e := tc.Endpoint; e != nil && *e != "" {
		errs = append(errs, validateEndpoint(*e, field.NewPath("endpoint"))...)
		cfg.Endpoint = *e
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, errs.ToAggregate())
	}
	return cfg, nil
}

// validateEndpoint accepts what gRPC resolves: host:port (dns), unix and
// unix-abstract targets.
func validateEndpoint(endpoint string, p *field.Path) field.ErrorList {
	target := endpoint
	if !strings.Contains(target, "//") {
		target = "dns://" + target
	}
	u, err := url.Parse(target)
	if err != nil {
		return field.ErrorList{field.Invalid(p, target, err.Error())}
	}
	switch u.Scheme {
	case "dns", "unix", "unix-abstract":
		return nil
	}
	return field.ErrorList{field.Invalid(p, target, fmt.Sprintf("unsupported scheme: %v.  Options are none, dns, unix, or unix-abstract.  See https://github.com/grpc/grpc/blob/master/doc/naming.md", u.Scheme))}
}

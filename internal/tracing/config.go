package tracing

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

var (
	// ErrDecode is a file that is not a TracingConfiguration.
	ErrDecode = errors.New("error decoding tracing configuration")
	// ErrInvalid is a TracingConfiguration that does not validate.
	ErrInvalid = errors.New("invalid tracing configuration")
)

const (
	kind = "TracingConfiguration"
	// defaultEndpoint is the OTLP gRPC collector used when the file names
	// none: the OpenTelemetry default.
	defaultEndpoint   = "localhost:4317"
	maxRatePerMillion = 1000000
)

// versions are the apiVersions kube-apiserver reads the file in; their
// TracingConfiguration types have the same fields.
var versions = []string{"apiserver.config.k8s.io/v1", "apiserver.config.k8s.io/v1beta1", "apiserver.config.k8s.io/v1alpha1"}

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
	js, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDecode, err)
	}
	var tm struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(js, &tm); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDecode, err)
	}
	switch {
	case tm.Kind != kind:
		return nil, fmt.Errorf("%w: expected kind %s, got %q", ErrDecode, kind, tm.Kind)
	case !contains(versions, tm.APIVersion):
		return nil, fmt.Errorf("%w: unsupported apiVersion %q, want one of %s", ErrDecode, tm.APIVersion, strings.Join(versions, ", "))
	}
	var tc apiserverv1.TracingConfiguration
	strictErrs, err := sigsjson.UnmarshalStrict(js, &tc)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDecode, err)
	}
	if len(strictErrs) > 0 {
		return nil, fmt.Errorf("%w: strict decoding error: %w", ErrDecode, errors.Join(strictErrs...))
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
	if e := tc.Endpoint; e != nil {
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

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

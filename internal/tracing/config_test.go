package tracing

import (
	"errors"
	"testing"
)

func TestParse(t *testing.T) {
	const head = "apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\n"
	tests := []struct {
		name string
		data string
		want Config
		is   error
		err  string
	}{
		{name: "defaults", data: head, want: Config{Endpoint: "localhost:4317"}},
		{name: "all fields", data: head + "endpoint: 10.0.0.1:4317\nsamplingRatePerMillion: 1000000\n", want: Config{Endpoint: "10.0.0.1:4317", SamplingRatePerMillion: 1000000}},
		{name: "v1beta1", data: "apiVersion: apiserver.config.k8s.io/v1beta1\nkind: TracingConfiguration\nsamplingRatePerMillion: 10\n", want: Config{Endpoint: "localhost:4317", SamplingRatePerMillion: 10}},
		{name: "unix socket", data: head + "endpoint: unix:///var/run/otel.sock\n", want: Config{Endpoint: "unix:///var/run/otel.sock"}},
		{name: "negative rate", data: head + "samplingRatePerMillion: -1\n", is: ErrInvalid,
			err: "invalid tracing configuration: samplingRatePerMillion: Invalid value: -1: sampling rate must be positive"},
		{name: "rate too high", data: head + "samplingRatePerMillion: 1000001\n", is: ErrInvalid,
			err: "invalid tracing configuration: samplingRatePerMillion: Invalid value: 1000001: sampling rate per million must be less than or equal to one million"},
		{name: "bad scheme", data: head + "endpoint: http://collector:4317\n", is: ErrInvalid,
			err: `invalid tracing configuration: endpoint: Invalid value: "http://collector:4317": unsupported scheme: http.  Options are none, dns, unix, or unix-abstract.  See https://github.com/grpc/grpc/blob/master/doc/naming.md`},
		{name: "unknown field", data: head + "endpoints: x\n", is: ErrDecode,
			err: `error decoding tracing configuration: strict decoding error: unknown field "endpoints"`},
		{name: "wrong kind", data: "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\n", is: ErrDecode,
			err: `error decoding tracing configuration: expected kind TracingConfiguration, got "EncryptionConfiguration"`},
		{name: "wrong version", data: "apiVersion: v1\nkind: TracingConfiguration\n", is: ErrDecode,
			err: `error decoding tracing configuration: unsupported apiVersion "v1", want one of apiserver.config.k8s.io/v1, apiserver.config.k8s.io/v1beta1, apiserver.config.k8s.io/v1alpha1`},
		{name: "json", data: `{"apiVersion":"apiserver.config.k8s.io/v1beta1","kind":"TracingConfiguration","endpoint":"c:4317"}`,
			want: Config{Endpoint: "c:4317"}},
		{name: "empty", data: "\n", is: ErrDecode, err: "error decoding tracing configuration: configuration file is empty"},
		{name: "not yaml", data: "{", is: ErrDecode},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.data))
			if tt.is != nil {
				if !errors.Is(err, tt.is) || (tt.err != "" && err.Error() != tt.err) {
					t.Fatalf("err = %v, want %v %q", err, tt.is, tt.err)
				}
				return
			}
			if err != nil || *got != tt.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nendpoint: a:1\nsamplingRatePerMillion: 5\n"))
	f.Add([]byte("{}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse(data)
		if err == nil && (cfg.SamplingRatePerMillion < 0 || cfg.SamplingRatePerMillion > maxRatePerMillion || cfg.Endpoint == "") {
			t.Fatalf("accepted %+v", cfg)
		}
	})
}

package eventratelimit

import (
	"errors"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/portcullis/portcullis/internal/configfile"
)

// APIVersion and Kind are what a configuration must declare.
const (
	APIVersion = "eventratelimit.admission.k8s.io/v1alpha1"
	Kind       = "Configuration"
)

// defaultCacheSize is kube-apiserver's number of buckets kept per limit
// when cacheSize is unset.
const defaultCacheSize = 4096

// LimitType says what the events sharing one bucket have in common.
type LimitType string

// The limit types kube-apiserver knows.
const (
	// ServerLimitType is one bucket for every event the server receives.
	ServerLimitType LimitType = "Server"
	// NamespaceLimitType is one bucket per namespace.
	NamespaceLimitType LimitType = "Namespace"
	// UserLimitType is one bucket per requesting user name.
	UserLimitType LimitType = "User"
	// SourceAndObjectLimitType is one bucket per event source and
	// involved object.
	SourceAndObjectLimitType LimitType = "SourceAndObject"
)

// limitTypes are the supported types, in the order errors list them.
var limitTypes = []LimitType{ServerLimitType, NamespaceLimitType, UserLimitType, SourceAndObjectLimitType}

// Configuration is eventratelimit.admission.k8s.io/v1alpha1 Configuration.
type Configuration struct {
	metav1.TypeMeta `json:",inline"`
	// Limits are applied in order; at least one is required.
	Limits []Limit `json:"limits"`
}

// Limit is one rate limit: a token bucket per key of its Type.
type Limit struct {
	Type LimitType `json:"type"`
	// QPS is the rate at which a bucket refills, in events per second.
	QPS int32 `json:"qps"`
	// Burst is a bucket's size, and how full a new bucket starts.
	Burst int32 `json:"burst"`
	// CacheSize is how many buckets are kept (0: 4096); ignored for
	// Server.
	CacheSize int32 `json:"cacheSize,omitempty"`
}

var configType = configfile.Type{Kind: Kind, Versions: []string{APIVersion}}

// Decode reads a configuration in YAML or JSON, strictly. Empty data is
// the empty configuration, as kube-apiserver reads a plugin given none
// (which Validate then refuses). v1alpha1 has no defaults: an unset
// cacheSize is resolved when the plugin is built.
func Decode(data []byte) (*Configuration, error) {
	cfg := &Configuration{}
	if err := configType.Decode(data, cfg); err != nil {
		if errors.Is(err, configfile.ErrEmpty) {
			return &Configuration{}, nil
		}
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return cfg, nil
}

// Validate returns every problem of c, in kube-apiserver's words.
func (c *Configuration) Validate() field.ErrorList {
	var errs field.ErrorList
	limitsPath := field.NewPath("limits")
	if len(c.Limits) == 0 {
		errs = append(errs, field.Invalid(limitsPath, c.Limits, "must not be empty"))
	}
	for i, l := range c.Limits {
		p := limitsPath.Index(i)
		if !supported(l.Type) {
			errs = append(errs, field.NotSupported(p.Child("type"), l.Type, limitTypes))
		}
		if l.Burst <= 0 {
			errs = append(errs, field.Invalid(p.Child("burst"), l.Burst, "must be positive"))
		}
		if l.QPS <= 0 {
			errs = append(errs, field.Invalid(p.Child("qps"), l.QPS, "must be positive"))
		}
		// A Server limit has a single bucket and no cache to size.
		if l.Type != ServerLimitType && l.CacheSize < 0 {
			errs = append(errs, field.Invalid(p.Child("cacheSize"), l.CacheSize, "must not be negative"))
		}
	}
	return errs
}

func supported(t LimitType) bool {
	for _, s := range limitTypes {
		if s == t {
			return true
		}
	}
	return false
}

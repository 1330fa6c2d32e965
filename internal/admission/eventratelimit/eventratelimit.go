package eventratelimit

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/utils/clock"

	"github.com/portcullis/portcullis/internal/admission"
)

// Name is the plugin's name in --enable-admission-plugins.
const Name = "EventRateLimit"

// Plugin is EventRateLimit.
type Plugin struct {
	limits []*limiter
}

// New decodes and validates config and returns the plugin, whose buckets
// refill by clk (clock.RealClock{} in the server).
func New(config []byte, clk clock.PassiveClock) (*Plugin, error) {
	cfg, err := Decode(config)
	if err != nil {
		return nil, err
	}
	return NewFromConfig(cfg, clk)
}

// NewFromConfig is New for a configuration already decoded.
func NewFromConfig(cfg *Configuration, clk clock.PassiveClock) (*Plugin, error) {
	if errs := cfg.Validate(); len(errs) > 0 {
		return nil, fmt.Errorf("%w: %w", ErrConfig, errs.ToAggregate())
	}
	p := &Plugin{}
	for _, l := range cfg.Limits {
		p.limits = append(p.limits, newLimiter(l, clk))
	}
	return p, nil
}

// Validate implements admission.Validator.
func (p *Plugin) Validate(_ context.Context, a *admission.Attributes) error {
	if a.Operation != admission.Create && a.Operation != admission.Update {
		return nil
	}
	// Only the core group's Events: kube-apiserver compares the group and
	// kind of the request, and events.k8s.io has a group of its own.
	if a.Kind.Group != "" || a.Kind.Kind != "Event" {
		return nil
	}
	if a.DryRun {
		return nil
	}
	var errs []error
	// Every limit spends a token, even after one has refused.
	for _, l := range p.limits {
		if err := l.accept(a); err != nil {
			errs = append(errs, err)
		}
	}
	if agg := utilerrors.NewAggregate(errs); agg != nil {
		return apierrors.NewTooManyRequestsError(agg.Error())
	}
	return nil
}

// limiter is one configured limit: its buckets and how a request picks one.
type limiter struct {
	typ     LimitType
	buckets buckets
	key     func(*admission.Attributes) string
}

func newLimiter(l Limit, clk clock.PassiveClock) *limiter {
	newBucket := func() flowcontrol.PassiveRateLimiter {
		return flowcontrol.NewTokenBucketPassiveRateLimiterWithClock(float32(l.QPS), int(l.Burst), clk)
	}
	if l.Type == ServerLimitType {
		return &limiter{typ: l.Type, buckets: single{newBucket()}, key: func(*admission.Attributes) string { return "" }}
	}
	size := int(l.CacheSize)
	if size == 0 {
		size = defaultCacheSize
	}
	lim := &limiter{typ: l.Type, buckets: newLRU(size, newBucket)}
	switch l.Type {
	case NamespaceLimitType:
		lim.key = namespaceKey
	case UserLimitType:
		lim.key = userKey
	default: // SourceAndObjectLimitType; Validate refused the others
		lim.key = sourceAndObjectKey
	}
	return lim
}

func (l *limiter) accept(a *admission.Attributes) error {
	key := l.key(a)
	if !l.buckets.get(key).TryAccept() {
		return fmt.Errorf("limit reached on type %v for key %v", l.typ, key)
	}
	return nil
}

func namespaceKey(a *admission.Attributes) string { return a.Namespace }

func userKey(a *admission.Attributes) string {
	if a.UserInfo == nil {
		return ""
	}
	return a.UserInfo.GetName()
}

// sourceAndObjectKey runs the source and involved object together without
// a separator, as kube-apiserver does (so distinct events may share a
// bucket).
func sourceAndObjectKey(a *admission.Attributes) string {
	ev, ok := a.Object.(*corev1.Event)
	if !ok || ev == nil {
		return ""
	}
	o := ev.InvolvedObject
	return strings.Join([]string{ev.Source.Component, ev.Source.Host,
		o.Kind, o.Namespace, o.Name, string(o.UID), o.APIVersion}, "")
}

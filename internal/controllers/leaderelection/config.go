package leaderelection

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/clock"
)

// kube-controller-manager's defaults (--leader-elect-lease-duration,
// --leader-elect-renew-deadline, --leader-elect-retry-period,
// --leader-elect-resource-namespace).
const (
	DefaultNamespace     = "kube-system"
	DefaultLeaseDuration = 15 * time.Second
	DefaultRenewDeadline = 10 * time.Second
	DefaultRetryPeriod   = 2 * time.Second
)

// jitterFactor spreads a candidate's retries over RetryPeriod times
// [1, 1+jitterFactor], as client-go's does; RenewDeadline must exceed
// the longest such wait so that a leader gets more than one try.
const jitterFactor = 1.2

// Config is one election. Zero fields take the defaults above.
type Config struct {
	// Namespace and Name name the Lease. Name is required: each Lease
	// stands for one set of controllers.
	Namespace, Name string
	// Identity is this replica's holderIdentity; empty means
	// kube-controller-manager's form, hostname_uuid, unique per process.
	Identity string

	// LeaseDuration is how long candidates wait after last seeing the
	// lease change before taking it; whole seconds, as the Lease field.
	LeaseDuration time.Duration
	// RenewDeadline is how long the leader keeps trying to renew before
	// it stops leading.
	RenewDeadline time.Duration
	// RetryPeriod is the time between tries, both to acquire and to renew.
	RetryPeriod time.Duration

	// Clock tells the time that decides expiry and paces the tries; nil
	// means the real clock. (The timeout of one API call is real time.)
	Clock clock.Clock
	// Log receives acquisitions, losses and failures; nil discards.
	Log *slog.Logger
	// Metrics, when set, receives leader_election_master_status{name}
	// (shared by the electors of one registry, so one elector per Name).
	Metrics prometheus.Registerer
}

// withDefaults fills the zero fields.
func (c Config) withDefaults() (Config, error) {
	if c.Namespace == "" {
		c.Namespace = DefaultNamespace
	}
	if c.Identity == "" {
		host, err := os.Hostname()
		if err != nil {
			return c, fmt.Errorf("identity from hostname: %w", err)
		}
		c.Identity = host + "_" + string(uuid.NewUUID())
	}
	if c.LeaseDuration == 0 {
		c.LeaseDuration = DefaultLeaseDuration
	}
	if c.RenewDeadline == 0 {
		c.RenewDeadline = DefaultRenewDeadline
	}
	if c.RetryPeriod == 0 {
		c.RetryPeriod = DefaultRetryPeriod
	}
	if c.Clock == nil {
		c.Clock = clock.RealClock{}
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	return c, nil
}

// validate returns every problem of a defaulted Config.
func (c Config) validate() error {
	var errs []error
	if c.Name == "" {
		errs = append(errs, errors.New("name: required"))
	} else {
		for _, msg := range validation.IsDNS1123Subdomain(c.Name) {
			errs = append(errs, fmt.Errorf("name: %s", msg))
		}
	}
	for _, msg := range validation.IsDNS1123Label(c.Namespace) {
		errs = append(errs, fmt.Errorf("namespace: %s", msg))
	}
	if c.LeaseDuration < time.Second || c.LeaseDuration%time.Second != 0 {
		errs = append(errs, fmt.Errorf("leaseDuration: %s is not a positive whole number of seconds", c.LeaseDuration))
	}
	if c.RenewDeadline <= 0 {
		errs = append(errs, fmt.Errorf("renewDeadline: %s must be greater than zero", c.RenewDeadline))
	}
	if c.RetryPeriod <= 0 {
		errs = append(errs, fmt.Errorf("retryPeriod: %s must be greater than zero", c.RetryPeriod))
	}
	if c.LeaseDuration <= c.RenewDeadline {
		errs = append(errs, fmt.Errorf("leaseDuration: %s must be greater than renewDeadline %s", c.LeaseDuration, c.RenewDeadline))
	}
	if c.RenewDeadline <= time.Duration(jitterFactor*float64(c.RetryPeriod)) {
		errs = append(errs, fmt.Errorf("renewDeadline: %s must be greater than retryPeriod*%v (%s)", c.RenewDeadline, jitterFactor, c.RetryPeriod))
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %w", ErrInvalidConfig, errors.Join(errs...))
}

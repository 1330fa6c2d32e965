package webhook

import (
	"errors"
	"time"

	"github.com/portcullis/portcullis/internal/request"
)

// The outcomes of a webhook's part of the decision trace, beside
// "admitted" and "denied".
const (
	outcomeMutated = "mutated"
	outcomeError   = "error"
	outcomeIgnored = "error (failurePolicy Ignore)"
	// recordedAnswer marks the Detail of a webhook answered by
	// Options.Answers.
	recordedAnswer = "recorded answer"
)

// called is what the decision trace keeps of one webhook call.
type called struct {
	// callErr is what the call returned, err what the request makes of it
	// (nil when the webhook failed open).
	callErr, err error
	mutated      bool
	recorded     bool
}

// part is the decision trace's part for one webhook call begun at start.
func (c called) part(h *hook, phase string, start time.Time) request.Step {
	p := request.Step{Rule: h.rule, Phase: phase, Outcome: "admitted", Micros: request.Since(start)}
	var rj *rejection
	switch {
	case c.callErr == nil && c.mutated:
		p.Outcome = outcomeMutated
	case c.callErr == nil:
	case errors.As(c.callErr, &rj):
		p.Outcome, p.Detail = "denied", rj.status.ErrStatus.Message
	case c.err == nil:
		p.Outcome, p.Detail = outcomeIgnored, c.callErr.Error()
	default:
		p.Outcome, p.Detail = outcomeError, c.err.Error()
	}
	if c.recorded {
		if p.Detail == "" {
			p.Detail = recordedAnswer
		} else {
			p.Detail = recordedAnswer + ": " + p.Detail
		}
	}
	return p
}

package defaults

import flowcontrolv1 "k8s.io/api/flowcontrol/v1"

// API Priority and Fairness defaults, as flowcontrol.apiserver.k8s.io/v1
// documents them.
const (
	defaultMatchingPrecedence       = 1000
	defaultNominalConcurrencyShares = 30
	defaultHandSize                 = 8
	defaultQueues                   = 64
	defaultQueueLengthLimit         = 50
)

func flowSchema(fs *flowcontrolv1.FlowSchema) {
	if fs.Spec.MatchingPrecedence == 0 {
		fs.Spec.MatchingPrecedence = defaultMatchingPrecedence
	}
}

func priorityLevelConfiguration(pl *flowcontrolv1.PriorityLevelConfiguration) {
	if e := pl.Spec.Exempt; e != nil {
		if e.NominalConcurrencyShares == nil {
			e.NominalConcurrencyShares = ptr[int32](0)
		}
		if e.LendablePercent == nil {
			e.LendablePercent = ptr[int32](0)
		}
	}
	l := pl.Spec.Limited
	if l == nil {
		return
	}
	if l.NominalConcurrencyShares == nil {
		l.NominalConcurrencyShares = ptr[int32](defaultNominalConcurrencyShares)
	}
	if l.LendablePercent == nil {
		l.LendablePercent = ptr[int32](0)
	}
	if q := l.LimitResponse.Queuing; q != nil {
		if q.HandSize == 0 {
			q.HandSize = defaultHandSize
		}
		if q.Queues == 0 {
			q.Queues = defaultQueues
		}
		if q.QueueLengthLimit == 0 {
			q.QueueLengthLimit = defaultQueueLengthLimit
		}
	}
}

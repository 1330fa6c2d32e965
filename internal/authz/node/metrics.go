package node

import (
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// operation names a kind of graph change, as the label of
// node_authorizer_graph_actions_duration_seconds.
type operation int

const (
	opAddPod operation = iota
	opDeletePod
	opAddPV
	opDeletePV
	opAddVolumeAttachment
	opDeleteVolumeAttachment
	opAddResourceSlice
	opDeleteResourceSlice
	opAddPodCertificateRequest
	opDeletePodCertificateRequest
	numOperations
)

// operationNames are kube-apiserver's label values.
var operationNames = [numOperations]string{
	opAddPod:                      "AddPod",
	opDeletePod:                   "DeletePod",
	opAddPV:                       "AddPV",
	opDeletePV:                    "DeletePV",
	opAddVolumeAttachment:         "AddVolumeAttachment",
	opDeleteVolumeAttachment:      "DeleteVolumeAttachment",
	opAddResourceSlice:            "AddResourceSlice",
	opDeleteResourceSlice:         "DeleteResourceSlice",
	opAddPodCertificateRequest:    "AddPodCertificateRequest",
	opDeletePodCertificateRequest: "DeletePodCertificateRequest",
}

// graphMetrics times graph changes. The observers are looked up once, so
// that recording a change does not allocate.
type graphMetrics struct {
	observe [numOperations]prometheus.Observer
}

func newGraphMetrics(reg prometheus.Registerer) (graphMetrics, error) {
	var m graphMetrics
	if reg == nil {
		return m, nil
	}
	vec := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "node_authorizer_graph_actions_duration_seconds",
		Help: "[ALPHA] Histogram of duration of graph actions in node authorizer.",
		// kube-apiserver's buckets: from 0.1ms, doubling, to ~200ms.
		Buckets: prometheus.ExponentialBuckets(0.0001, 2, 12),
	}, []string{"operation"})
	if err := reg.Register(vec); err != nil {
		return m, fmt.Errorf("%w: %w", ErrMetrics, err)
	}
	for op, name := range operationNames {
		m.observe[op] = vec.WithLabelValues(name)
	}
	return m, nil
}

func (m *graphMetrics) since(op operation, start time.Time) {
	if o := m.observe[op]; o != nil {
		o.Observe(time.Since(start).Seconds())
	}
}

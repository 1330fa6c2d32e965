package printers

import (
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func corePodPrinters() []registration {
	return []registration{rowPrinter(podColumns, podRow)}
}

var podColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	column("Ready", "string", "Ready containers out of all containers, sidecars included."),
	column("Status", "string", "The aggregate status of the pod and its containers."),
	column("Restarts", "string", "Container restarts, and how long ago the last one ended."),
	ageColumn(),
	wideColumn("IP", "string", corev1.PodStatus{}.SwaggerDoc()["podIP"]),
	wideColumn("Node", "string", corev1.PodSpec{}.SwaggerDoc()["nodeName"]),
	wideColumn("Nominated Node", "string", corev1.PodStatus{}.SwaggerDoc()["nominatedNodeName"]),
	wideColumn("Readiness Gates", "string", corev1.PodSpec{}.SwaggerDoc()["readinessGates"]),
}

// nodeLostReason is the pod status reason the node lifecycle controller sets
// on pods of an unreachable node; such pods being deleted show as Unknown.
const nodeLostReason = "NodeLost"

func podRow(pod *corev1.Pod, now time.Time) metav1.TableRow {
	s := summarizePod(pod)
	restarts := strconv.Itoa(s.restarts)
	if s.restarts != 0 && !s.lastRestart.IsZero() {
		restarts = fmt.Sprintf("%d (%s ago)", s.restarts, since(s.lastRestart, now))
	}
	row := metav1.TableRow{Cells: []any{
		pod.Name,
		fmt.Sprintf("%d/%d", s.ready, s.total),
		s.status,
		restarts,
		since(pod.CreationTimestamp, now),
		orNone(podIP(pod)),
		orNone(pod.Spec.NodeName),
		orNone(pod.Status.NominatedNodeName),
		readinessGates(pod),
	}}
	// Clients such as kubectl --watch use these to tell finished pods apart.
	switch pod.Status.Phase {
	case corev1.PodSucceeded:
		row.Conditions = []metav1.TableRowCondition{{Type: metav1.RowCompleted, Status: metav1.ConditionTrue, Reason: string(corev1.PodSucceeded), Message: "The pod has completed successfully."}}
	case corev1.PodFailed:
		row.Conditions = []metav1.TableRowCondition{{Type: metav1.RowCompleted, Status: metav1.ConditionTrue, Reason: string(corev1.PodFailed), Message: "The pod failed."}}
	}
	return row
}

// podSummary is what the READY, STATUS and RESTARTS cells show.
type podSummary struct {
	ready, total int
	status       string
	restarts     int
	lastRestart  metav1.Time
}

// summarizePod derives the one-word status of a pod the way kubectl users
// know it: the phase, overridden by the pod's reason, then by the first init
// container that has not finished (Init:1/3, Init:CrashLoopBackOff,
// Init:ExitCode:1), then by the reasons of the app containers
// (CrashLoopBackOff, Completed, OOMKilled), and finally by deletion
// (Terminating). Sidecars (restartable init containers) count as containers.
func summarizePod(pod *corev1.Pod) podSummary {
	s := podSummary{total: len(pod.Spec.Containers), status: string(pod.Status.Phase)}
	if pod.Status.Reason != "" {
		s.status = pod.Status.Reason
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Reason == corev1.PodReasonSchedulingGated {
			s.status = corev1.PodReasonSchedulingGated
		}
	}

	sidecars := map[string]bool{}
	for _, c := range pod.Spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			sidecars[c.Name] = true
			s.total++
		}
	}

	// While the pod initializes, restarts of every init container count;
	// once it runs, only those of sidecars and app containers do.
	var sidecarRestarts int
	var lastSidecarRestart metav1.Time
	initializing := false
	for i, c := range pod.Status.InitContainerStatuses {
		s.restarts += int(c.RestartCount)
		s.lastRestart = later(s.lastRestart, c.LastTerminationState)
		if sidecars[c.Name] {
			sidecarRestarts += int(c.RestartCount)
			lastSidecarRestart = later(lastSidecarRestart, c.LastTerminationState)
		}
		switch {
		case c.State.Terminated != nil && c.State.Terminated.ExitCode == 0:
			continue
		case sidecars[c.Name] && c.Started != nil && *c.Started:
			if c.Ready {
				s.ready++
			}
			continue
		}
		s.status = initBlockedStatus(c, i, len(pod.Spec.InitContainers))
		initializing = true
		break
	}

	if !initializing || podCondition(pod, corev1.PodInitialized) {
		s.restarts, s.lastRestart = sidecarRestarts, lastSidecarRestart
		running := false
		// Backwards, so that the first container's reason wins.
		for i := len(pod.Status.ContainerStatuses) - 1; i >= 0; i-- {
			c := pod.Status.ContainerStatuses[i]
			s.restarts += int(c.RestartCount)
			s.lastRestart = later(s.lastRestart, c.LastTerminationState)
			switch {
			case c.State.Waiting != nil && c.State.Waiting.Reason != "":
				s.status = c.State.Waiting.Reason
			case c.State.Terminated != nil && c.State.Terminated.Reason != "":
				s.status = c.State.Terminated.Reason
			case c.State.Terminated != nil:
				s.status = exitText("", c.State.Terminated)
			case c.Ready && c.State.Running != nil:
				running = true
				s.ready++
			}
		}
		// A completed container next to a running one does not make the
		// pod completed.
		if s.status == "Completed" && running {
			s.status = "NotReady"
			if podCondition(pod, corev1.PodReady) {
				s.status = "Running"
			}
		}
	}

	if pod.DeletionTimestamp != nil {
		switch {
		case pod.Status.Reason == nodeLostReason:
			s.status = "Unknown"
		case pod.Status.Phase != corev1.PodSucceeded && pod.Status.Phase != corev1.PodFailed:
			s.status = "Terminating"
		}
	}
	return s
}

// initBlockedStatus is the status an unfinished init container, number i
// of count, gives the pod.
func initBlockedStatus(c corev1.ContainerStatus, i, count int) string {
	switch {
	case c.State.Terminated != nil && c.State.Terminated.Reason != "":
		return "Init:" + c.State.Terminated.Reason
	case c.State.Terminated != nil:
		return exitText("Init:", c.State.Terminated)
	case c.State.Waiting != nil && c.State.Waiting.Reason != "" && c.State.Waiting.Reason != "PodInitializing":
		return "Init:" + c.State.Waiting.Reason
	}
	return fmt.Sprintf("Init:%d/%d", i, count)
}

// exitText names a termination without a reason by its signal or exit code.
func exitText(prefix string, t *corev1.ContainerStateTerminated) string {
	if t.Signal != 0 {
		return fmt.Sprintf("%sSignal:%d", prefix, t.Signal)
	}
	return fmt.Sprintf("%sExitCode:%d", prefix, t.ExitCode)
}

// later returns the later of t and the end of the last termination.
func later(t metav1.Time, last corev1.ContainerState) metav1.Time {
	if last.Terminated != nil && t.Before(&last.Terminated.FinishedAt) {
		return last.Terminated.FinishedAt
	}
	return t
}

func podCondition(pod *corev1.Pod, typ corev1.PodConditionType) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == typ {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// podIP is the pod's primary IP: podIP when set, as the API treats it as
// authoritative over podIPs for older clients.
func podIP(pod *corev1.Pod) string {
	if pod.Status.PodIP != "" {
		return pod.Status.PodIP
	}
	if len(pod.Status.PodIPs) > 0 {
		return pod.Status.PodIPs[0].IP
	}
	return ""
}

// readinessGates shows how many readiness gates have their condition True.
func readinessGates(pod *corev1.Pod) string {
	if len(pod.Spec.ReadinessGates) == 0 {
		return none
	}
	met := 0
	for _, gate := range pod.Spec.ReadinessGates {
		if podCondition(pod, gate.ConditionType) {
			met++
		}
	}
	return fmt.Sprintf("%d/%d", met, len(pod.Spec.ReadinessGates))
}

// Package podsecurity is the PodSecurity admission plugin: it holds pods to
// the Pod Security Standards (privileged, baseline, restricted) that their
// namespace's pod-security.kubernetes.io labels select, as kube-apiserver's
// plugin of that name (plugin/pkg/admission/security/podsecurity, a thin
// wrapper of k8s.io/pod-security-admission/admission) does.
//
// # Where the pieces come from
//
// The checks, levels, versions and label parsing are k8s.io/pod-security-admission's
// (policy.NewEvaluator with policy.DefaultChecks, api.PolicyToEvaluate);
// the configuration types, their strict loading (v1, v1beta1, v1alpha1)
// and their validation are its admission/api packages. The request
// handling - which requests are looked at, exemptions, the audit
// annotations, warnings, refusals and metrics - is written here, after
// the behaviour of kube-apiserver 1.37.
//
// # What is checked
//
//   - pods: creates, and updates that change a container's image or the
//     number of containers (ephemeral ones included), against the enforce level (refused with 403),
//     the audit level (an audit-violations annotation) and the warn level
//     (a warning); the status, binding and eviction subresources are not
//     looked at.
//   - pod-template workloads (deployments, replicasets, statefulsets,
//     daemonsets, jobs, cronjobs, replicationcontrollers, podtemplates):
//     audit and warn only, never refused.
//   - namespaces: invalid label values are refused (422, as kube-apiserver's
//     Invalid); a stricter enforce level is dry-run against the namespace's
//     pods (at most 3000, within one second or half the request's
//     remaining time) and the violations come back as warnings.
//
// Exempt usernames, namespaces and runtime classes from the configuration
// skip evaluation and are recorded in the pod-security.kubernetes.io/exempt
// audit annotation and in pod_security_exemptions_total.
package podsecurity

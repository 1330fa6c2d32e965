package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

type kind int

const (
	kindLoad    kind = iota // clients loop over op
	kindWatch               // watchers and one writer
	kindStartup             // launch to /readyz only
	kindIdle                // RSS idleWait after ready
)

// idleWait is how long idle-rss waits after /readyz before reading RSS.
const idleWait = 10 * time.Second

// ns is where every workload works.
const ns = "bench"

// op is one request of a load client; seq counts that client's requests.
type op func(ctx context.Context, c kubernetes.Interface, client, seq int) error

type workload struct {
	name    string
	what    string
	kind    kind
	clients int
	// prepare makes the objects the op needs and returns the op.
	prepare func(ctx context.Context, cs []kubernetes.Interface) (op, error)
}

func workloads() []workload {
	return []workload{
		{name: "create-cm-1", what: "create ConfigMap, 1 client", kind: kindLoad, clients: 1, prepare: prepareCreateCM},
		{name: "create-cm-16", what: "create ConfigMap, 16 clients", kind: kindLoad, clients: 16, prepare: prepareCreateCM},
		{name: "get-16", what: "GET one ConfigMap, 16 clients", kind: kindLoad, clients: 16, prepare: prepareGet},
		{name: "list-500-4", what: "LIST 500 ConfigMaps, consistent (no resourceVersion), 4 clients", kind: kindLoad, clients: 4, prepare: prepareList},
		{name: "ssar-16", what: "create SelfSubjectAccessReview, 16 clients", kind: kindLoad, clients: 16, prepare: prepareSSAR},
		podWorkload(0), podWorkload(10), podWorkload(100), podWorkload(1024),
		{name: "watch-1000", what: "1,000 watchers of one namespace's ConfigMaps, one writer; latency from before the create to delivery", kind: kindWatch, clients: 1000},
		{name: "startup", what: "launch to the first /readyz ok, empty data dir", kind: kindStartup},
		{name: "idle-rss", what: fmt.Sprintf("RSS %s after /readyz", idleWait), kind: kindIdle},
	}
}

func selectWorkloads(names string) ([]workload, error) {
	all := workloads()
	if names == "" || names == "all" {
		return all, nil
	}
	var out []workload
	for n := range strings.SplitSeq(names, ",") {
		found := false
		for _, w := range all {
			if w.name == strings.TrimSpace(n) {
				out, found = append(out, w), true
			}
		}
		if !found {
			var known []string
			for _, w := range all {
				known = append(known, w.name)
			}
			return nil, fmt.Errorf("unknown workload %q: want %s", n, strings.Join(known, ","))
		}
	}
	return out, nil
}

func createNamespace(ctx context.Context, c kubernetes.Interface) error {
	_, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("creating namespace %s: %w", ns, err)
	}
	return nil
}

func configMap(name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "bench"}},
		Data:       map[string]string{"key": "value", "other": "a small configuration value"},
	}
}

func prepareCreateCM(ctx context.Context, cs []kubernetes.Interface) (op, error) {
	return func(ctx context.Context, c kubernetes.Interface, client, seq int) error {
		_, err := c.CoreV1().ConfigMaps(ns).Create(ctx, configMap(fmt.Sprintf("c%d-%d", client, seq)), metav1.CreateOptions{})
		return err
	}, createNamespace(ctx, cs[0])
}

func prepareGet(ctx context.Context, cs []kubernetes.Interface) (op, error) {
	if err := createNamespace(ctx, cs[0]); err != nil {
		return nil, err
	}
	if _, err := cs[0].CoreV1().ConfigMaps(ns).Create(ctx, configMap("target"), metav1.CreateOptions{}); err != nil {
		return nil, err
	}
	return func(ctx context.Context, c kubernetes.Interface, _, _ int) error {
		_, err := c.CoreV1().ConfigMaps(ns).Get(ctx, "target", metav1.GetOptions{})
		return err
	}, nil
}

const listSize = 500

func prepareList(ctx context.Context, cs []kubernetes.Interface) (op, error) {
	if err := createNamespace(ctx, cs[0]); err != nil {
		return nil, err
	}
	err := parallel(ctx, cs, listSize, func(ctx context.Context, c kubernetes.Interface, i int) error {
		_, err := c.CoreV1().ConfigMaps(ns).Create(ctx, configMap(fmt.Sprintf("obj-%d", i)), metav1.CreateOptions{})
		return err
	})
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, c kubernetes.Interface, _, _ int) error {
		l, err := c.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
		if err == nil && len(l.Items) != listSize {
			err = fmt.Errorf("listed %d ConfigMaps, want %d", len(l.Items), listSize)
		}
		return err
	}, nil
}

func prepareSSAR(ctx context.Context, cs []kubernetes.Interface) (op, error) {
	return func(ctx context.Context, c kubernetes.Interface, _, _ int) error {
		r, err := c.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
			Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{
				Namespace: ns, Verb: "get", Resource: "configmaps",
			}},
		}, metav1.CreateOptions{})
		if err == nil && !r.Status.Allowed {
			err = errors.New("SelfSubjectAccessReview not allowed for admin")
		}
		return err
	}, nil
}

// parallel runs do(i) for i in [0, n) spread over the clients.
func parallel(ctx context.Context, cs []kubernetes.Interface, n int, do func(ctx context.Context, c kubernetes.Interface, i int) error) error {
	workers := min(len(cs), 16)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				if err := do(ctx, cs[w], i); err != nil {
					errs[w] = fmt.Errorf("object %d: %w", i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// matchingPolicies is how many of a pod workload's bindings match pods.
const matchingPolicies = 3

// otherResources are what the bindings that do not match pods match,
// spread so that the matcher sees many resources, not one.
var otherResources = []struct{ group, version, resource string }{
	{"", "v1", "secrets"}, {"", "v1", "services"}, {"", "v1", "serviceaccounts"},
	{"apps", "v1", "deployments"}, {"apps", "v1", "statefulsets"}, {"batch", "v1", "jobs"},
	{"", "v1", "configmaps"},
}

func podWorkload(bindings int) workload {
	return workload{
		name:    fmt.Sprintf("pods-%d", bindings),
		what:    fmt.Sprintf("create Pod, 16 clients, %d ValidatingAdmissionPolicy bindings (%d match pods)", bindings, min(bindings, matchingPolicies)),
		kind:    kindLoad,
		clients: 16,
		prepare: func(ctx context.Context, cs []kubernetes.Interface) (op, error) {
			return preparePods(ctx, cs, bindings)
		},
	}
}

// denyLabel is the label a policy denies: each policy its own, so that a
// probe shows that this one is loaded.
func denyLabel(i int) string { return fmt.Sprintf("deny-%d", i) }

func policy(i int, group, version, resource string) (*admissionv1.ValidatingAdmissionPolicy, *admissionv1.ValidatingAdmissionPolicyBinding) {
	name := fmt.Sprintf("bench-%d", i)
	fail := admissionv1.Fail
	p := &admissionv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: &fail,
			MatchConstraints: &admissionv1.MatchResources{ResourceRules: []admissionv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionv1.RuleWithOperations{
					Operations: []admissionv1.OperationType{admissionv1.Create, admissionv1.Update},
					Rule:       admissionv1.Rule{APIGroups: []string{group}, APIVersions: []string{version}, Resources: []string{resource}},
				},
			}}},
			Validations: []admissionv1.Validation{{
				Expression: fmt.Sprintf("!has(object.metadata.labels) || !(%q in object.metadata.labels)", denyLabel(i)),
				Message:    "labelled " + denyLabel(i),
			}},
		},
	}
	b := &admissionv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        name,
			ValidationActions: []admissionv1.ValidationAction{admissionv1.Deny},
		},
	}
	return p, b
}

func pod(name string, labels map[string]string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}},
	}
}

// preparePods makes bindings policies (the last matchingPolicies of them
// match pods, the others the otherResources in turn, the last of those
// ConfigMaps) and waits until every pod policy and the last other one deny
// what they must: only then are they all loaded and effective.
func preparePods(ctx context.Context, cs []kubernetes.Interface, bindings int) (op, error) {
	if err := createNamespace(ctx, cs[0]); err != nil {
		return nil, err
	}
	// Both servers run the ServiceAccount admission plugin, which needs the
	// namespace's default ServiceAccount: kube-controller-manager is not
	// there to make it for the reference (portcullis's own controller may
	// be first).
	_, err := cs[0].CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("creating the default ServiceAccount: %w", err)
	}
	others := max(bindings-matchingPolicies, 0)
	err = parallel(ctx, cs, bindings, func(ctx context.Context, c kubernetes.Interface, i int) error {
		r := otherResources[i%len(otherResources)]
		switch {
		case i >= others:
			r = struct{ group, version, resource string }{"", "v1", "pods"}
		case i == others-1:
			r = otherResources[len(otherResources)-1]
		}
		p, b := policy(i, r.group, r.version, r.resource)
		api := c.AdmissionregistrationV1()
		if _, err := api.ValidatingAdmissionPolicies().Create(ctx, p, metav1.CreateOptions{}); err != nil {
			return err
		}
		_, err := api.ValidatingAdmissionPolicyBindings().Create(ctx, b, metav1.CreateOptions{})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("creating policies: %w", err)
	}
	dryRun := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	for i := others; i < bindings; i++ {
		if err := waitDenied(ctx, fmt.Sprintf("bench-%d", i), func() error {
			_, err := cs[0].CoreV1().Pods(ns).Create(ctx, pod("probe", map[string]string{denyLabel(i): "x"}), dryRun)
			return err
		}); err != nil {
			return nil, err
		}
	}
	if others > 0 {
		i := others - 1
		if err := waitDenied(ctx, fmt.Sprintf("bench-%d", i), func() error {
			cm := configMap("probe")
			cm.Labels[denyLabel(i)] = "x"
			_, err := cs[0].CoreV1().ConfigMaps(ns).Create(ctx, cm, dryRun)
			return err
		}); err != nil {
			return nil, err
		}
	}
	return func(ctx context.Context, c kubernetes.Interface, client, seq int) error {
		_, err := c.CoreV1().Pods(ns).Create(ctx, pod(fmt.Sprintf("p%d-%d", client, seq), map[string]string{"app": "bench"}), metav1.CreateOptions{})
		return err
	}, nil
}

// policyLoadTimeout bounds how long a new policy may take to be enforced.
const policyLoadTimeout = 2 * time.Minute

// waitDenied retries create until the server denies it naming policy.
func waitDenied(ctx context.Context, policy string, create func() error) error {
	deadline := time.Now().Add(policyLoadTimeout)
	for {
		err := create()
		if err != nil && strings.Contains(err.Error(), "'"+policy+"'") {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("policy %s not enforced in %s (last answer: %v)", policy, policyLoadTimeout, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

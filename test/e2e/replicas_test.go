package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/portcullis/portcullis/internal/storage/etcd/etcdtest"
	"github.com/portcullis/portcullis/test/e2e/harness"
)

// electionTimeout bounds a change of leader: a killed holder's lease is
// taken only once LeaseDuration (15 s) passed without a renewal, plus a
// RetryPeriod or two on a busy machine.
const electionTimeout = 90 * time.Second

// etcdFlag points a replica at every member of c.
func etcdFlag(c *etcdtest.Cluster) string {
	return "--etcd-servers=" + strings.Join(c.Endpoints(), ",")
}

// waitFor polls check until it returns nil, failing the test after
// bound, and returns how long after since that was: the lag of an effect
// behind the write that caused it, for the test log (never compared).
func waitFor(t *testing.T, what string, bound time.Duration, since time.Time, check func() error) time.Duration {
	t.Helper()
	deadline := time.Now().Add(bound)
	for {
		err := check()
		if err == nil {
			return time.Since(since)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still failing after %s: %v", what, bound, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// tokenConfig is s's client configuration authenticating with a bearer
// token instead of the admin certificate.
func tokenConfig(t *testing.T, s *harness.Server, token string) *rest.Config {
	t.Helper()
	admin := s.RESTConfig(t)
	cfg := rest.AnonymousClientConfig(admin)
	cfg.BearerToken = token
	cfg.QPS = -1
	return cfg
}

func clientFor(t *testing.T, cfg *rest.Config) kubernetes.Interface {
	t.Helper()
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// writeTokens writes a --token-auth-file for alice and bob.
func writeTokens(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tokens.csv")
	if err := os.WriteFile(path, []byte("alice-token,alice,uid-alice\nbob-token,bob,uid-bob\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func configMap(name string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: data}
}

var dryRun = metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}

// TestReplicasShareState: two replicas on one etcd; whatever is made on
// A takes effect on B, including what B learns through its own watches
// (authorization, admission, CRDs) and what the elected controllers do.
func TestReplicasShareState(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cluster := etcdtest.Start(t, etcdtest.Options{})
	tokens := "--token-auth-file=" + writeTokens(t)
	a := harness.Start(t, etcdFlag(cluster), tokens)
	b := harness.StartReplica(t, a, etcdFlag(cluster), tokens)
	ca, cb := a.Client(t), b.Client(t)
	const ns = "shared"
	createNamespace(t, ca, ns)
	// B's connection is made before any lag is measured.
	if _, err := cb.Discovery().ServerVersion(); err != nil {
		t.Fatal(err)
	}
	lags := map[string]time.Duration{}
	record := func(t *testing.T, what string, lag time.Duration) {
		t.Logf("lag %s: %s", what, lag.Round(time.Millisecond))
		lags[what] = lag
	}

	step(t, "configmap read", func(t *testing.T) {
		if _, err := ca.CoreV1().ConfigMaps(ns).Create(ctx, configMap("cm1", map[string]string{"k": "v"}), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		written := time.Now()
		record(t, "configmap read", waitFor(t, "B reads A's ConfigMap", waitTimeout, written, func() error {
			got, err := cb.CoreV1().ConfigMaps(ns).Get(ctx, "cm1", metav1.GetOptions{})
			if err != nil {
				return err
			}
			if got.Data["k"] != "v" {
				return fmt.Errorf("data %v", got.Data)
			}
			return nil
		}))
	})

	step(t, "watch", func(t *testing.T) {
		list, err := cb.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		wctx, cancel := context.WithTimeout(ctx, waitTimeout)
		defer cancel()
		w, err := cb.CoreV1().ConfigMaps(ns).Watch(wctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		if _, err := ca.CoreV1().ConfigMaps(ns).Create(ctx, configMap("watched", nil), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		written := time.Now()
		for ev := range w.ResultChan() {
			if cm, ok := ev.Object.(*corev1.ConfigMap); ok && ev.Type == watch.Added && cm.Name == "watched" {
				record(t, "watch event", time.Since(written))
				return
			}
		}
		t.Fatalf("B's watch ended without A's create: %v", wctx.Err())
	})

	step(t, "rbac", func(t *testing.T) {
		alice := clientFor(t, tokenConfig(t, b, "alice-token"))
		kc := kubeconfigFor(t, b, "alice-token", "")
		if out, _, _ := b.Kubectl(t, "--kubeconfig", kc, "auth", "can-i", "create", "configmaps", "-n", ns); strings.TrimSpace(out) != "no" {
			t.Fatalf("alice may create configmaps on B before any grant: %q", out)
		}
		if _, err := alice.CoreV1().ConfigMaps(ns).Create(ctx, configMap("by-alice", nil), dryRun); !apierrors.IsForbidden(err) {
			t.Fatalf("alice's create on B before any grant: %v, want Forbidden", err)
		}
		role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "cm-writer"}, Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"create", "get"}}}}
		if _, err := ca.RbacV1().Roles(ns).Create(ctx, role, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "alice-cm-writer"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "cm-writer"},
			Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "alice"}}}
		if _, err := ca.RbacV1().RoleBindings(ns).Create(ctx, binding, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		written := time.Now()
		record(t, "rbac grant", waitFor(t, "alice allowed on B", waitTimeout, written, func() error {
			_, err := alice.CoreV1().ConfigMaps(ns).Create(ctx, configMap("by-alice", nil), dryRun)
			return err
		}))
		if out := b.MustKubectl(t, "--kubeconfig", kc, "auth", "can-i", "create", "configmaps", "-n", ns); strings.TrimSpace(out) != "yes" {
			t.Errorf("kubectl auth can-i as alice on B after the grant: %q", out)
		}
		if _, err := alice.CoreV1().ConfigMaps(ns).Create(ctx, configMap("by-alice", nil), metav1.CreateOptions{}); err != nil {
			t.Errorf("alice's create on B: %v", err)
		}
	})

	step(t, "validating admission policy", func(t *testing.T) {
		if _, err := cb.CoreV1().ConfigMaps(ns).Create(ctx, configMap("blocked-0", nil), dryRun); err != nil {
			t.Fatalf("B refuses a blocked- ConfigMap before any policy: %v", err)
		}
		policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: "no-blocked"},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
				FailurePolicy: ptr.To(admissionregistrationv1.Fail),
				MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
						Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
					}}}},
				Validations: []admissionregistrationv1.Validation{{
					Expression: "!object.metadata.name.startsWith('blocked-')", Message: "blocked names are refused"}},
			},
		}
		if _, err := ca.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, policy, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "no-blocked-binding"},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
				PolicyName:        "no-blocked",
				ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
				MatchResources: &admissionregistrationv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{
					MatchLabels: map[string]string{corev1.LabelMetadataName: ns}}},
			},
		}
		if _, err := ca.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		written := time.Now()
		want := "ValidatingAdmissionPolicy 'no-blocked' with binding 'no-blocked-binding' denied request: blocked names are refused"
		record(t, "admission policy", waitFor(t, "B denies by A's policy", waitTimeout, written, func() error {
			_, err := cb.CoreV1().ConfigMaps(ns).Create(ctx, configMap("blocked-1", nil), dryRun)
			if err == nil {
				return errors.New("allowed")
			}
			if !strings.Contains(err.Error(), want) {
				return fmt.Errorf("denied, but not by the policy: %w", err)
			}
			return nil
		}))
	})

	step(t, "namespace finalized", func(t *testing.T) {
		createNamespace(t, ca, "doomed")
		if _, err := ca.CoreV1().ConfigMaps("doomed").Create(ctx, configMap("content", nil), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := ca.CoreV1().Namespaces().Delete(ctx, "doomed", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		written := time.Now()
		record(t, "namespace finalized", waitFor(t, "the namespace deleted on A gone on B", waitTimeout, written, func() error {
			ns, err := cb.CoreV1().Namespaces().Get(ctx, "doomed", metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return nil
			}
			if err != nil {
				return err
			}
			return fmt.Errorf("still there, phase %s, finalizers %v", ns.Status.Phase, ns.Spec.Finalizers)
		}))
	})

	step(t, "service account token", func(t *testing.T) {
		if _, err := ca.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "robot"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		token := strings.TrimSpace(a.MustKubectl(t, "create", "token", "robot", "-n", ns, "--duration=20m"))
		written := time.Now()
		robot := clientFor(t, tokenConfig(t, b, token))
		record(t, "service account token", waitFor(t, "A's token authenticates on B", waitTimeout, written, func() error {
			review, err := robot.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
			if err != nil {
				return err
			}
			if got, want := review.Status.UserInfo.Username, "system:serviceaccount:"+ns+":robot"; got != want {
				return fmt.Errorf("user %q, want %q", got, want)
			}
			return nil
		}))
	})

	step(t, "custom resource definition", func(t *testing.T) {
		data, err := os.ReadFile("testdata/crd/crontab-crd.yaml")
		if err != nil {
			t.Fatal(err)
		}
		crd := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(data, &crd.Object); err != nil {
			t.Fatal(err)
		}
		crds := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
		if _, err := dynamic.NewForConfigOrDie(a.RESTConfig(t)).Resource(crds).Create(ctx, crd, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		written := time.Now()
		crontabs := dynamic.NewForConfigOrDie(b.RESTConfig(t)).Resource(schema.GroupVersionResource{Group: "stable.example.com", Version: "v1", Resource: "crontabs"}).Namespace(ns)
		obj := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "stable.example.com/v1", "kind": "CronTab",
			"metadata": map[string]any{"name": "nightly"},
			"spec":     map[string]any{"cronSpec": "0 3 * * *", "image": "cron:1"},
		}}
		record(t, "custom resource served", waitFor(t, "B serves A's CRD", waitTimeout, written, func() error {
			_, err := crontabs.Create(ctx, obj, metav1.CreateOptions{})
			return err
		}))
		got, err := crontabs.Get(ctx, "nightly", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if replicas, _, _ := unstructured.NestedInt64(got.Object, "spec", "replicas"); replicas != 1 {
			t.Errorf("B's CronTab has replicas %d, want the schema's default 1", replicas)
		}
	})

	names := slices.Sorted(func(yield func(string) bool) {
		for k := range lags {
			if !yield(k) {
				return
			}
		}
	})
	var summary strings.Builder
	for _, k := range names {
		fmt.Fprintf(&summary, "\n  %-24s %s", k, lags[k].Round(time.Millisecond))
	}
	t.Logf("lags from the write on A to the effect on B:%s", summary.String())
}

// holder reads the controllers' Lease through c; "" while nobody holds it.
func holder(ctx context.Context, c kubernetes.Interface) (string, error) {
	lease, err := c.CoordinationV1().Leases("kube-system").Get(ctx, "portcullis-controllers", metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	return ptr.Deref(lease.Spec.HolderIdentity, ""), nil
}

// replicaOf finds the replica whose log names identity (each elector
// logs its identity, hostname_uuid, unique per process); -1 if none.
func replicaOf(replicas []*harness.Server, identity string) int {
	for i, r := range replicas {
		if strings.Contains(r.Output(), identity) {
			return i
		}
	}
	return -1
}

// TestReplicasLeaderElection: of three replicas exactly one holds the
// controllers' Lease; when it dies another takes over and the
// controllers keep working.
func TestReplicasLeaderElection(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cluster := etcdtest.Start(t, etcdtest.Options{})
	first := harness.Start(t, etcdFlag(cluster))
	replicas := []*harness.Server{first,
		harness.StartReplica(t, first, etcdFlag(cluster)),
		harness.StartReplica(t, first, etcdFlag(cluster))}
	clients := make([]kubernetes.Interface, len(replicas))
	for i, r := range replicas {
		clients[i] = r.Client(t)
	}

	var leader string
	start := time.Now()
	waitFor(t, "a holder of the lease", electionTimeout, start, func() error {
		var err error
		leader, err = holder(ctx, clients[0])
		if err == nil && leader == "" {
			err = errors.New("no holder")
		}
		return err
	})
	held := replicaOf(replicas, leader)
	if held < 0 {
		t.Fatalf("holder %q is none of the replicas", leader)
	}
	// Every replica reads the same holder, and only that one says it leads.
	for i, c := range clients {
		if got, err := holder(ctx, c); err != nil || got != leader {
			t.Errorf("replica %d reads holder %q, %v; want %q", i, got, err, leader)
		}
		want := "0"
		if i == held {
			want = "1"
		}
		waitForMetric(t, replicas[i], `leader_election_master_status{name="portcullis-controllers"} `+want)
	}
	t.Logf("replica %d holds the lease as %s", held, leader)

	replicas[held].Kill()
	killed := time.Now()
	other := clients[(held+1)%len(clients)]
	var next string
	lag := waitFor(t, "another replica takes the lease", electionTimeout, killed, func() error {
		var err error
		next, err = holder(ctx, other)
		if err == nil && (next == leader || next == "") {
			err = fmt.Errorf("holder still %q", next)
		}
		return err
	})
	took := replicaOf(replicas, next)
	if took < 0 || took == held {
		t.Fatalf("new holder %q is replica %d (killed %d)", next, took, held)
	}
	t.Logf("lag leader takeover after kill -9: %s (replica %d took it)", lag.Round(time.Millisecond), took)

	// The controllers run on the new leader: a namespace is finalized.
	createNamespace(t, other, "after-takeover")
	if _, err := other.CoreV1().ConfigMaps("after-takeover").Create(ctx, configMap("content", nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := other.CoreV1().Namespaces().Delete(ctx, "after-takeover", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	deleted := time.Now()
	lag = waitFor(t, "the namespace finalized under the new leader", waitTimeout, deleted, func() error {
		_, err := other.CoreV1().Namespaces().Get(ctx, "after-takeover", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err == nil {
			return errors.New("still there")
		}
		return err
	})
	t.Logf("lag namespace finalized after takeover: %s", lag.Round(time.Millisecond))
}

// replicaClients are the clients of every replica, swapped when one
// restarts on a new port.
type replicaClients struct {
	mu      sync.Mutex
	clients []kubernetes.Interface
}

func (r *replicaClients) get(i int) kubernetes.Interface {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.clients[i%len(r.clients)]
}

func (r *replicaClients) set(i int, c kubernetes.Interface) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clients[i] = c
}

// writeLog is what the writers did: acked names with the value written,
// and names whose outcome is unknown (every try failed, perhaps after
// etcd had committed it).
type writeLog struct {
	mu      sync.Mutex
	acked   map[string]string
	unknown map[string]bool
	count   []int // acked per writer
	// failed counts failed requests, committed the retries that found
	// an earlier failed try had committed: proof the faults were felt.
	failed, committed int
}

func (l *writeLog) ack(writer int, name, value string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.acked[name] = value
	l.count[writer]++
}

func (l *writeLog) lost(name string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.unknown[name] = true
}

// progress is the smallest number of acked writes of any writer.
func (l *writeLog) progress() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Min(l.count)
}

// writer creates ConfigMaps until ctx ends; a failed request is tried
// again on the next replica. An AlreadyExists on a retry means an earlier
// try committed: the write is acked if the stored value is this one.
func writer(ctx context.Context, id int, ns string, rc *replicaClients, log *writeLog) {
	replica := id
	for n := 0; ctx.Err() == nil; n++ {
		name, value := fmt.Sprintf("w%d-%04d", id, n), fmt.Sprintf("value-%d-%d", id, n)
		acked := false
		for try := 0; try < 20 && ctx.Err() == nil && !acked; try++ {
			c := rc.get(replica)
			rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			_, err := c.CoreV1().ConfigMaps(ns).Create(rctx, configMap(name, map[string]string{"v": value}), metav1.CreateOptions{})
			if err != nil && !apierrors.IsAlreadyExists(err) {
				log.mu.Lock()
				log.failed++
				log.mu.Unlock()
			}
			if apierrors.IsAlreadyExists(err) {
				log.mu.Lock()
				log.committed++
				log.mu.Unlock()
				var got *corev1.ConfigMap
				got, err = c.CoreV1().ConfigMaps(ns).Get(rctx, name, metav1.GetOptions{})
				if err == nil && got.Data["v"] != value {
					err = fmt.Errorf("%s holds %q, not %q", name, got.Data["v"], value)
				}
			}
			cancel()
			if err == nil {
				log.ack(id, name, value)
				acked = true
				continue
			}
			replica++
			select {
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
		}
		if !acked {
			log.lost(name)
		}
	}
}

// resumingWatch follows the ConfigMaps of ns from rv, reopening the watch
// on the next replica from the last resourceVersion it saw whenever it
// ends or errs, until ctx ends. It records every name added.
type resumingWatch struct {
	mu      sync.Mutex
	seen    map[string]bool
	resumes int
	gone    error // a 410: the resumed watch could not start where it left
}

func (w *resumingWatch) run(ctx context.Context, ns, rv string, first int, rc *replicaClients) {
	replica := first
	for ctx.Err() == nil {
		wi, err := rc.get(replica).CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true})
		if err == nil {
			rv = w.drain(wi, rv)
			wi.Stop()
		}
		if ctx.Err() != nil {
			return
		}
		if apierrors.IsGone(err) || apierrors.IsResourceExpired(err) {
			w.mu.Lock()
			w.gone = err
			w.mu.Unlock()
			return
		}
		w.mu.Lock()
		w.resumes++
		w.mu.Unlock()
		replica++
		time.Sleep(100 * time.Millisecond)
	}
}

// drain reads events until the watch ends and returns the last
// resourceVersion seen.
func (w *resumingWatch) drain(wi watch.Interface, rv string) string {
	for ev := range wi.ResultChan() {
		switch ev.Type {
		case watch.Error:
			if status := apierrors.FromObject(ev.Object); apierrors.IsGone(status) || apierrors.IsResourceExpired(status) {
				w.mu.Lock()
				w.gone = status
				w.mu.Unlock()
			}
			return rv
		case watch.Bookmark, watch.Added, watch.Modified, watch.Deleted:
			obj, ok := ev.Object.(metav1.Object)
			if !ok {
				continue
			}
			rv = obj.GetResourceVersion()
			if ev.Type == watch.Added {
				w.mu.Lock()
				w.seen[obj.GetName()] = true
				w.mu.Unlock()
			}
		}
	}
	return rv
}

func (w *resumingWatch) missing(want map[string]string) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var missing []string
	for name := range want {
		if !w.seen[name] {
			missing = append(missing, name)
		}
	}
	slices.Sort(missing)
	return missing
}

// TestReplicasFaults: writers keep writing through three replicas on a
// three-member etcd while a replica is killed and an etcd member
// stopped, then both come back. No acknowledged write is lost, and a
// watch resumed across replicas from its last resourceVersion misses no
// event.
func TestReplicasFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("three replicas on three etcd members under faults; skipped with -short")
	}
	t.Parallel()
	ctx := context.Background()
	cluster := etcdtest.Start(t, etcdtest.Options{Members: 3})
	first := harness.Start(t, etcdFlag(cluster))
	replicas := []*harness.Server{first,
		harness.StartReplica(t, first, etcdFlag(cluster)),
		harness.StartReplica(t, first, etcdFlag(cluster))}
	rc := &replicaClients{}
	for _, r := range replicas {
		rc.clients = append(rc.clients, r.Client(t))
	}
	const ns, writers = "faults", 4
	createNamespace(t, rc.get(0), ns)
	list, err := rc.get(0).CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}

	// The watch starts on the replica that will be killed, so that it
	// must resume elsewhere.
	const victim = 1
	wctx, stopWatch := context.WithCancel(ctx)
	w := &resumingWatch{seen: map[string]bool{}}
	var wg sync.WaitGroup
	wg.Go(func() { w.run(wctx, ns, list.ResourceVersion, victim, rc) })
	defer func() { stopWatch(); wg.Wait() }()

	log := &writeLog{acked: map[string]string{}, unknown: map[string]bool{}, count: make([]int, writers)}
	writeCtx, stopWriters := context.WithCancel(ctx)
	var writersDone sync.WaitGroup
	for i := range writers {
		writersDone.Go(func() { writer(writeCtx, i, ns, rc, log) })
	}
	defer func() { stopWriters(); writersDone.Wait() }()
	// advance waits until every writer has acked n more writes: the
	// faults happen under load, and the cluster keeps taking writes.
	advance := func(what string, n int) {
		t.Helper()
		target := log.progress() + n
		lag := waitFor(t, "writers progressing "+what, 2*time.Minute, time.Now(), func() error {
			if p := log.progress(); p < target {
				return fmt.Errorf("slowest writer at %d acked writes, want %d", p, target)
			}
			return nil
		})
		t.Logf("%d more writes per writer %s in %s", n, what, lag.Round(time.Millisecond))
	}

	const perPhase = 50
	advance("before the faults", perPhase)
	replicas[victim].Kill()
	advance("with replica 1 killed", perPhase)
	cluster.StopMember(0)
	advance("with replica 1 killed and etcd member 0 stopped", perPhase)
	replicas[victim].Restart()
	rc.set(victim, replicas[victim].Client(t))
	cluster.RestartMember(0)
	advance("after both restarted", perPhase)
	stopWriters()
	writersDone.Wait()

	log.mu.Lock()
	acked, unknown := log.acked, log.unknown
	t.Logf("%d writes acked, %d with unknown outcome (in flight when the writers stopped, or every try failed); %d requests failed, %d retries found the earlier try committed",
		len(acked), len(unknown), log.failed, log.committed)
	log.mu.Unlock()

	// Every acked write is readable on every replica, with its value.
	for i := range replicas {
		got, err := rc.get(i).CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatalf("listing on replica %d: %v", i, err)
		}
		stored := map[string]string{}
		for _, cm := range got.Items {
			if strings.HasPrefix(cm.Name, "w") { // not kube-root-ca.crt
				stored[cm.Name] = cm.Data["v"]
			}
		}
		for name, value := range acked {
			if stored[name] != value {
				t.Errorf("replica %d: acked %s=%q reads %q", i, name, value, stored[name])
			}
		}
		for name := range stored {
			if _, ok := acked[name]; !ok && !unknown[name] {
				t.Errorf("replica %d: %s stored but never written", i, name)
			}
		}
	}

	// The watch saw every acked create (waiting for it to catch up), and
	// nothing that was not written.
	waitFor(t, "the resumed watch caught up", waitTimeout, time.Now(), func() error {
		w.mu.Lock()
		gone := w.gone
		w.mu.Unlock()
		if gone != nil {
			t.Fatalf("the watch could not resume from its last resourceVersion: %v", gone)
		}
		if m := w.missing(acked); len(m) > 0 {
			return fmt.Errorf("%d acked creates not seen, first %s", len(m), m[0])
		}
		return nil
	})
	w.mu.Lock()
	for name := range w.seen {
		if _, ok := acked[name]; !ok && !unknown[name] && strings.HasPrefix(name, "w") {
			t.Errorf("the watch saw %s, never written", name)
		}
	}
	resumes := w.resumes
	w.mu.Unlock()
	t.Logf("the watch resumed %d times and saw %d creates", resumes, len(w.seen))
	if resumes == 0 {
		t.Errorf("the watch never resumed: it did not see replica %d die", victim)
	}
}

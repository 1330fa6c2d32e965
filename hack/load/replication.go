package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/portcullis/portcullis/hack/internal/latency"
)

// runReplication measures how long a write made through one replica takes
// to be seen through another (peer): a ConfigMap created on the first
// until a watch on the peer reports it, and a RoleBinding created on the
// first until the peer's authorizer allows what it grants.
func runReplication(ctx context.Context, kubeconfig, peer string, n int) error {
	if kubeconfig == "" || peer == "" {
		return errors.New("-op replication needs -kubeconfig and -peer")
	}
	a, err := kubeClient(kubeconfig)
	if err != nil {
		return err
	}
	b, err := kubeClient(peer)
	if err != nil {
		return err
	}
	ns := fmt.Sprintf("replication-%d", time.Now().UnixNano())
	if _, err := a.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		return err
	}
	defer a.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{})
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "reader"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}}}}
	if _, err := a.RbacV1().Roles(ns).Create(ctx, role, metav1.CreateOptions{}); err != nil {
		return err
	}
	// The peer must see the namespace before its watch of it means anything.
	for {
		if _, err := b.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); err == nil {
			break
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		time.Sleep(time.Millisecond)
	}
	w, err := b.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	defer w.Stop()

	var watched, authorized []time.Duration
	for i := range n {
		name := fmt.Sprintf("c%d", i)
		start := time.Now()
		if _, err := a.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			return err
		}
		if err := waitAdded(ctx, w, name); err != nil {
			return err
		}
		watched = append(watched, time.Since(start))

		user := fmt.Sprintf("lag-%d", i)
		start = time.Now()
		binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: user},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "reader"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}}}
		if _, err := a.RbacV1().RoleBindings(ns).Create(ctx, binding, metav1.CreateOptions{}); err != nil {
			return err
		}
		if err := waitAllowed(ctx, b, ns, user); err != nil {
			return err
		}
		authorized = append(authorized, time.Since(start))
	}
	fmt.Fprintf(os.Stdout, "%d writes through %s, seen through %s\n", n, kubeconfig, peer)
	for _, m := range []struct {
		name string
		d    []time.Duration
	}{{"ConfigMap create -> peer watch event", watched}, {"RoleBinding create -> peer allows", authorized}} {
		slices.Sort(m.d)
		fmt.Fprintf(os.Stdout, "%-40s p50 %s  p99 %s  max %s\n", m.name, ms(latency.Percentile(m.d, 50)), ms(latency.Percentile(m.d, 99)), ms(m.d[len(m.d)-1]))
	}
	return nil
}

func kubeClient(kubeconfig string) (kubernetes.Interface, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", kubeconfig, err)
	}
	cfg.QPS = -1
	cfg.UserAgent = "portcullis-load"
	return kubernetes.NewForConfig(cfg)
}

func waitAdded(ctx context.Context, w watch.Interface, name string) error {
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				return errors.New("the peer's watch ended")
			}
			if cm, isCM := ev.Object.(*corev1.ConfigMap); isCM && ev.Type == watch.Added && cm.Name == name {
				return nil
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// waitAllowed asks the peer until it allows user to get configmaps in ns.
func waitAllowed(ctx context.Context, c kubernetes.Interface, ns, user string) error {
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: user,
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Verb: "get", Resource: "configmaps"}}}
	for {
		out, err := c.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		if out.Status.Allowed {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

package authzconfig

import (
	"context"
	"errors"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/portcullis/portcullis/internal/controllers/controllertest"
)

func TestStageFollowsTheStore(t *testing.T) {
	env := controllertest.New(t)
	ctx := context.Background()
	s, err := NewStage(Flags{Modes: []string{"Node", "RBAC"}}, env.Objects, nil, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.RBAC == nil || s.Rules == nil {
		t.Fatalf("stage without RBAC or rules: %+v", s)
	}
	if err := s.Ready(); err == nil {
		t.Fatal("ready before its informers listed anything")
	}
	controllertest.Run(t, s.Run)
	controllertest.Eventually(t, func() (bool, string) { err := s.Ready(); return err == nil, fmt.Sprint(err) })

	getPods := func(name string, groups ...string) authorizer.AttributesRecord {
		return authorizer.AttributesRecord{User: &user.DefaultInfo{Name: name, Groups: groups}, Verb: "get", Resource: "pods",
			Namespace: "default", APIVersion: "v1", ResourceRequest: true}
	}
	if d, _, _ := s.Authorizer.Authorize(ctx, getPods("alice")); d == authorizer.DecisionAllow {
		t.Fatal("alice allowed before any binding")
	}
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "reader", Namespace: "default"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get"}}}}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "alice", Namespace: "default"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "reader"},
		Subjects: []rbacv1.Subject{{Kind: "User", APIGroup: rbacv1.GroupName, Name: "alice"}}}
	if _, err := env.API.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, "test"); err != nil {
		t.Fatal(err)
	}
	if _, err := env.API.Create(ctx, role, "test"); err != nil {
		t.Fatal(err)
	}
	if _, err := env.API.Create(ctx, binding, "test"); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, func() (bool, string) {
		d, reason, err := s.Authorizer.Authorize(ctx, getPods("alice"))
		return d == authorizer.DecisionAllow, fmt.Sprintf("%v %q %v", d, reason, err)
	})
	if d, _, _ := s.Authorizer.Authorize(ctx, getPods("bob")); d == authorizer.DecisionAllow {
		t.Error("bob allowed by alice's binding")
	}
	// A kubelet reaches pods bound to its node through the Node authorizer.
	if d, _, _ := s.Authorizer.Authorize(ctx, getPods("system:node:n1", "system:nodes")); d == authorizer.DecisionAllow {
		t.Error("a kubelet may read a pod that is not bound to its node")
	}
}

func TestStageFlagsExclusive(t *testing.T) {
	env := controllertest.New(t)
	_, err := NewStage(Flags{ConfigFile: "authz.yaml", LegacySet: true}, env.Objects, nil, "test", nil)
	if !errors.Is(err, ErrFlagsExclusive) {
		t.Errorf("config file with legacy flags: %v, want ErrFlagsExclusive", err)
	}
}

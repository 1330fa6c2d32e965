package serviceaccount

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"github.com/portcullis/portcullis/internal/admission"
)

const ns = "ns"

var errBoom = errors.New("boom")

// accounts serves as both lookups: cached holds what an informer has
// seen, live what storage holds; a name in fail fails with errBoom.
type accounts struct {
	cached, live map[string]*corev1.ServiceAccount
	fail         map[string]bool
	liveCalls    int
	waits        []time.Duration
}

func (s *accounts) get(m map[string]*corev1.ServiceAccount, name string) (*corev1.ServiceAccount, error) {
	if s.fail[name] {
		return nil, errBoom
	}
	if sa, ok := m[name]; ok {
		return sa.DeepCopy(), nil
	}
	// What a store reports: the plural resource.
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "serviceaccounts"}, name)
}

func (s *accounts) plugin(t *testing.T) *Plugin {
	t.Helper()
	p, err := New(
		func(_ context.Context, namespace, name string) (*corev1.ServiceAccount, error) {
			if namespace != ns {
				t.Errorf("cached lookup in namespace %q", namespace)
			}
			return s.get(s.cached, name)
		},
		func(_ context.Context, namespace, name string) (*corev1.ServiceAccount, error) {
			if namespace != ns {
				t.Errorf("live lookup in namespace %q", namespace)
			}
			s.liveCalls++
			return s.get(s.live, name)
		},
		WithVolumeNameSuffix(func() string { return "abcde" }),
		WithWait(func(_ context.Context, d time.Duration) error { s.waits = append(s.waits, d); return nil }),
	)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func account(name string, mutate ...func(*corev1.ServiceAccount)) *corev1.ServiceAccount {
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
	for _, m := range mutate {
		m(sa)
	}
	return sa
}

func enforcing(secrets ...string) func(*corev1.ServiceAccount) {
	return func(sa *corev1.ServiceAccount) {
		sa.Annotations = map[string]string{EnforceMountableSecretsAnnotation: "true"}
		for _, s := range secrets {
			sa.Secrets = append(sa.Secrets, corev1.ObjectReference{Name: s})
		}
	}
}

func newPod(mutate ...func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: ns},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}},
	}
	for _, m := range mutate {
		m(p)
	}
	return p
}

var podsGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

func create(obj runtime.Object) *admission.Attributes {
	return &admission.Attributes{Resource: podsGVR, Namespace: ns, Name: "p", Operation: admission.Create, Object: obj}
}

// tokenMount is the mount the plugin adds with the test's suffix.
var tokenMount = corev1.VolumeMount{Name: "kube-api-access-abcde", ReadOnly: true, MountPath: "/var/run/secrets/kubernetes.io/serviceaccount"}

// tokenVolume is kube-apiserver's volume, spelled out field by field.
var tokenVolume = corev1.Volume{Name: "kube-api-access-abcde", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
	DefaultMode: ptr.To[int32](0o644),
	Sources: []corev1.VolumeProjection{
		{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: ptr.To[int64](3607)}},
		{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"},
			Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
		{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "namespace",
			FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}},
	},
}}}

// status is what a client sees of an error.
type status struct {
	Code    int32
	Reason  metav1.StatusReason
	Message string
}

func statusOf(t *testing.T, err error) *status {
	t.Helper()
	if err == nil {
		return nil
	}
	var se *apierrors.StatusError
	if !errors.As(err, &se) {
		t.Fatalf("error %v (%T) is not an API status", err, err)
	}
	return &status{Code: se.ErrStatus.Code, Reason: se.ErrStatus.Reason, Message: se.ErrStatus.Message}
}

func forbidden(msg string) *status {
	return &status{Code: 403, Reason: metav1.StatusReasonForbidden, Message: `pods "p" is forbidden: ` + msg}
}

func TestAdmit(t *testing.T) {
	withDefault := func(p *corev1.Pod) {
		p.Spec.ServiceAccountName = "default"
		p.Spec.DeprecatedServiceAccount = "default"
	}
	mounted := func(p *corev1.Pod) {
		p.Spec.Containers[0].VolumeMounts = append(p.Spec.Containers[0].VolumeMounts, tokenMount)
		p.Spec.Volumes = append(p.Spec.Volumes, tokenVolume)
	}
	for _, tc := range []struct {
		name      string
		cached    []*corev1.ServiceAccount
		live      []*corev1.ServiceAccount
		fail      []string
		attrs     *admission.Attributes
		want      runtime.Object // nil: the object is unchanged
		wantErr   *status
		liveCalls int
		waits     int
	}{
		{
			name:   "default account, token volume and mount",
			cached: []*corev1.ServiceAccount{account("default")},
			attrs:  create(newPod()),
			want:   newPod(withDefault, mounted),
		},
		{
			name:   "init containers and containers each get the mount",
			cached: []*corev1.ServiceAccount{account("default")},
			attrs: create(newPod(func(p *corev1.Pod) {
				p.Spec.InitContainers = []corev1.Container{{Name: "init"}, {Name: "sidecar", RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways)}}
			})),
			want: newPod(withDefault, mounted, func(p *corev1.Pod) {
				p.Spec.InitContainers = []corev1.Container{
					{Name: "init", VolumeMounts: []corev1.VolumeMount{tokenMount}},
					{Name: "sidecar", RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways), VolumeMounts: []corev1.VolumeMount{tokenMount}},
				}
			}),
		},
		{
			name:   "ephemeral containers are not given the mount",
			cached: []*corev1.ServiceAccount{account("default")},
			attrs: create(newPod(func(p *corev1.Pod) {
				p.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debug"}}}
			})),
			want: newPod(withDefault, mounted, func(p *corev1.Pod) {
				p.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debug"}}}
			}),
		},
		{
			name:   "a container with something at the path keeps it; the others are mounted",
			cached: []*corev1.ServiceAccount{account("default")},
			attrs: create(newPod(func(p *corev1.Pod) {
				p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "own",
					VolumeMounts: []corev1.VolumeMount{{Name: "mine", MountPath: TokenMountPath}}})
			})),
			want: newPod(withDefault, func(p *corev1.Pod) {
				p.Spec.Containers = []corev1.Container{
					{Name: "c", Image: "i", VolumeMounts: []corev1.VolumeMount{tokenMount}},
					{Name: "own", VolumeMounts: []corev1.VolumeMount{{Name: "mine", MountPath: TokenMountPath}}},
				}
				p.Spec.Volumes = []corev1.Volume{tokenVolume}
			}),
		},
		{
			name:   "no volume when every container has something at the path",
			cached: []*corev1.ServiceAccount{account("default")},
			attrs: create(newPod(func(p *corev1.Pod) {
				p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "mine", MountPath: TokenMountPath}}
			})),
			want: newPod(withDefault, func(p *corev1.Pod) {
				p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "mine", MountPath: TokenMountPath}}
			}),
		},
		{
			name:   "an existing kube-api-access- volume is mounted, not added again",
			cached: []*corev1.ServiceAccount{account("default")},
			attrs: create(newPod(func(p *corev1.Pod) {
				p.Spec.Volumes = []corev1.Volume{{Name: "data"}, {Name: "kube-api-access-zzzzz"}, {Name: "kube-api-access-yyyyy"}}
			})),
			want: newPod(withDefault, func(p *corev1.Pod) {
				p.Spec.Volumes = []corev1.Volume{{Name: "data"}, {Name: "kube-api-access-zzzzz"}, {Name: "kube-api-access-yyyyy"}}
				p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "kube-api-access-zzzzz", ReadOnly: true, MountPath: TokenMountPath}}
			}),
		},
		{
			name:   "the pod's automount false wins",
			cached: []*corev1.ServiceAccount{account("default")},
			attrs:  create(newPod(func(p *corev1.Pod) { p.Spec.AutomountServiceAccountToken = ptr.To(false) })),
			want:   newPod(withDefault, func(p *corev1.Pod) { p.Spec.AutomountServiceAccountToken = ptr.To(false) }),
		},
		{
			name:   "the account's automount false",
			cached: []*corev1.ServiceAccount{account("default", func(sa *corev1.ServiceAccount) { sa.AutomountServiceAccountToken = ptr.To(false) })},
			attrs:  create(newPod()),
			want:   newPod(withDefault),
		},
		{
			name:   "the pod's automount true beats the account's false",
			cached: []*corev1.ServiceAccount{account("default", func(sa *corev1.ServiceAccount) { sa.AutomountServiceAccountToken = ptr.To(false) })},
			attrs:  create(newPod(func(p *corev1.Pod) { p.Spec.AutomountServiceAccountToken = ptr.To(true) })),
			want:   newPod(withDefault, mounted, func(p *corev1.Pod) { p.Spec.AutomountServiceAccountToken = ptr.To(true) }),
		},
		{
			name: "a named account, image pull secrets copied by name",
			cached: []*corev1.ServiceAccount{account("builder", func(sa *corev1.ServiceAccount) {
				sa.AutomountServiceAccountToken = ptr.To(false)
				sa.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "reg1"}, {Name: "reg2"}}
			})},
			attrs: create(newPod(func(p *corev1.Pod) { p.Spec.ServiceAccountName = "builder" })),
			want: newPod(func(p *corev1.Pod) {
				p.Spec.ServiceAccountName = "builder"
				p.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "reg1"}, {Name: "reg2"}}
			}),
		},
		{
			name: "the pod's own image pull secrets are kept",
			cached: []*corev1.ServiceAccount{account("default", func(sa *corev1.ServiceAccount) {
				sa.AutomountServiceAccountToken = ptr.To(false)
				sa.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "reg1"}}
			})},
			attrs: create(newPod(func(p *corev1.Pod) { p.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "mine"}} })),
			want: newPod(withDefault, func(p *corev1.Pod) {
				p.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "mine"}}
			}),
		},
		{
			name: "an account not cached yet is read from storage",
			live: []*corev1.ServiceAccount{account("builder")},
			attrs: create(newPod(func(p *corev1.Pod) {
				p.Spec.ServiceAccountName = "builder"
				p.Spec.AutomountServiceAccountToken = ptr.To(false)
			})),
			want: newPod(func(p *corev1.Pod) {
				p.Spec.ServiceAccountName = "builder"
				p.Spec.AutomountServiceAccountToken = ptr.To(false)
			}),
			liveCalls: 2, // Admit, then its validation
		},
		{
			name:      "a missing named account: one read of storage",
			attrs:     create(newPod(func(p *corev1.Pod) { p.Spec.ServiceAccountName = "builder" })),
			wantErr:   forbidden(`error looking up service account ns/builder: serviceaccount "builder" not found`),
			liveCalls: 1,
		},
		{
			name:      "a missing default account: ten reads of storage",
			attrs:     create(newPod()),
			wantErr:   forbidden(`error looking up service account ns/default: serviceaccount "default" not found`),
			liveCalls: 10,
			waits:     9,
		},
		{
			name:    "a failing lookup",
			fail:    []string{"default"},
			attrs:   create(newPod()),
			wantErr: forbidden(`error looking up service account ns/default: boom`),
		},
		{
			name: "mountable secrets are enforced at admission too",
			cached: []*corev1.ServiceAccount{account("default", enforcing("allowed"), func(sa *corev1.ServiceAccount) {
				sa.AutomountServiceAccountToken = ptr.To(false)
			})},
			attrs: create(newPod(func(p *corev1.Pod) {
				p.Spec.Volumes = []corev1.Volume{{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "other"}}}}
			})),
			wantErr: forbidden(`volume with secret.secretName="other" is not allowed because service account default does not reference that secret`),
		},
		{
			name:  "a mirror pod is not changed",
			attrs: create(newPod(func(p *corev1.Pod) { p.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: "x"} })),
		},
		{
			name: "a mirror pod may not name an account",
			attrs: create(newPod(func(p *corev1.Pod) {
				p.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: "x"}
				p.Spec.ServiceAccountName = "default"
			})),
			wantErr: forbidden("a mirror pod may not reference service accounts"),
		},
		{
			name: "a mirror pod may not reference a secret",
			attrs: create(newPod(func(p *corev1.Pod) {
				p.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: "x"}
				p.Spec.Volumes = []corev1.Volume{{Name: "s", VolumeSource: corev1.VolumeSource{CSI: &corev1.CSIVolumeSource{
					Driver: "d", NodePublishSecretRef: &corev1.LocalObjectReference{Name: "creds"}}}}}
			})),
			wantErr: forbidden("a mirror pod may not reference secrets"),
		},
		{
			name: "a mirror pod may not project a token",
			attrs: create(newPod(func(p *corev1.Pod) {
				p.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: "x"}
				p.Spec.Volumes = []corev1.Volume{{Name: "t", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
					Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "t"}}}}}}}
			})),
			wantErr: forbidden("a mirror pod may not use ServiceAccountToken volume projections"),
		},
		{
			name: "pod updates are not changed",
			attrs: &admission.Attributes{Resource: podsGVR, Namespace: ns, Name: "p", Operation: admission.Update,
				Object: newPod(), OldObject: newPod()},
		},
		{
			name:  "other subresources are not looked at",
			attrs: &admission.Attributes{Resource: podsGVR, Subresource: "status", Namespace: ns, Name: "p", Operation: admission.Create, Object: newPod()},
		},
		{
			name:  "other resources are not looked at",
			attrs: &admission.Attributes{Resource: schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "pods"}, Namespace: ns, Name: "p", Operation: admission.Create, Object: newPod()},
		},
		{
			name:  "a delete (no object) is not looked at",
			attrs: &admission.Attributes{Resource: podsGVR, Namespace: ns, Name: "p", Operation: admission.Delete, OldObject: newPod()},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &accounts{cached: byName(tc.cached), live: byName(append(tc.cached, tc.live...)), fail: map[string]bool{}}
			for _, f := range tc.fail {
				s.fail[f] = true
			}
			var before runtime.Object
			if tc.attrs.Object != nil {
				before = tc.attrs.Object.DeepCopyObject()
			}
			err := s.plugin(t).Admit(context.Background(), tc.attrs)
			if diff := cmp.Diff(tc.wantErr, statusOf(t, err)); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			want := tc.want
			if want == nil {
				want = before
			}
			if tc.wantErr == nil {
				if diff := cmp.Diff(want, tc.attrs.Object); diff != "" {
					t.Errorf("object (-want +got):\n%s", diff)
				}
			}
			if s.liveCalls != tc.liveCalls {
				t.Errorf("%d reads of storage, want %d", s.liveCalls, tc.liveCalls)
			}
			if len(s.waits) != tc.waits {
				t.Errorf("%d waits, want %d", len(s.waits), tc.waits)
			}
			for _, d := range s.waits {
				if d != s.waits[0] || d < 100*time.Millisecond || d >= 200*time.Millisecond {
					t.Errorf("waits %v, want one interval in [100ms, 200ms)", s.waits)
					break
				}
			}
		})
	}
}

func byName(sas []*corev1.ServiceAccount) map[string]*corev1.ServiceAccount {
	m := map[string]*corev1.ServiceAccount{}
	for _, sa := range sas {
		m[sa.Name] = sa
	}
	return m
}

func TestValidate(t *testing.T) {
	secretEnv := func(name, secret string) corev1.EnvVar {
		return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: secret}, Key: "k"}}}
	}
	secretFrom := func(secret string) corev1.EnvFromSource {
		return corev1.EnvFromSource{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: secret}}}
	}
	named := func(p *corev1.Pod) { p.Spec.ServiceAccountName = "sa" }
	ephemeral := func(c corev1.EphemeralContainerCommon) func(*corev1.Pod) {
		return func(p *corev1.Pod) {
			p.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: c}}
		}
	}
	ephemeralUpdate := func(p *corev1.Pod) *admission.Attributes {
		return &admission.Attributes{Resource: podsGVR, Subresource: "ephemeralcontainers", Namespace: ns, Name: "p",
			Operation: admission.Update, Object: p, OldObject: newPod(named)}
	}
	internal := func(msg string) *status { return &status{Code: 500, Message: msg} }
	for _, tc := range []struct {
		name    string
		account *corev1.ServiceAccount
		attrs   *admission.Attributes
		wantErr *status
	}{
		{
			name:    "a pod without an account",
			attrs:   create(newPod()),
			wantErr: forbidden("no service account specified for pod ns/p"),
		},
		{
			name:    "a missing account",
			attrs:   create(newPod(named)),
			wantErr: forbidden(`error looking up service account ns/sa: serviceaccount "sa" not found`),
		},
		{
			name:    "no enforcement without the annotation",
			account: account("sa"),
			attrs: create(newPod(named, func(p *corev1.Pod) {
				p.Spec.Containers[0].EnvFrom = []corev1.EnvFromSource{secretFrom("other")}
			})),
		},
		{
			name: "an annotation that is not true does not enforce",
			account: account("sa", func(sa *corev1.ServiceAccount) {
				sa.Annotations = map[string]string{EnforceMountableSecretsAnnotation: "yes"}
			}),
			attrs: create(newPod(named, func(p *corev1.Pod) {
				p.Spec.Containers[0].EnvFrom = []corev1.EnvFromSource{secretFrom("other")}
			})),
		},
		{
			name: "listed secrets are allowed",
			account: account("sa", enforcing("a", "b"), func(sa *corev1.ServiceAccount) {
				sa.Annotations[EnforceMountableSecretsAnnotation] = "1"
				sa.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "reg"}}
			}),
			attrs: create(newPod(named, func(p *corev1.Pod) {
				p.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "a"}}}}
				p.Spec.Containers[0].Env = []corev1.EnvVar{secretEnv("E", "b")}
				p.Spec.InitContainers = []corev1.Container{{Name: "i", EnvFrom: []corev1.EnvFromSource{secretFrom("a")}}}
				p.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "reg"}}
			})),
		},
		{
			name:    "projected secrets are not checked",
			account: account("sa", enforcing()),
			attrs: create(newPod(named, func(p *corev1.Pod) {
				p.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
					Sources: []corev1.VolumeProjection{{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "x"}}}}}}}}
			})),
		},
		{
			name:    "init container env",
			account: account("sa", enforcing("a")),
			attrs: create(newPod(named, func(p *corev1.Pod) {
				p.Spec.InitContainers = []corev1.Container{{Name: "i", Env: []corev1.EnvVar{secretEnv("E", "x")}}}
			})),
			wantErr: forbidden(`init container i with envVar E referencing secret.secretName="x" is not allowed because service account sa does not reference that secret`),
		},
		{
			name:    "init container envFrom",
			account: account("sa", enforcing("a")),
			attrs: create(newPod(named, func(p *corev1.Pod) {
				p.Spec.InitContainers = []corev1.Container{{Name: "i", EnvFrom: []corev1.EnvFromSource{secretFrom("x")}}}
			})),
			wantErr: forbidden(`init container i with envFrom referencing secret.secretName="x" is not allowed because service account sa does not reference that secret`),
		},
		{
			name:    "env is checked before envFrom",
			account: account("sa", enforcing("a")),
			attrs: create(newPod(named, func(p *corev1.Pod) {
				p.Spec.Containers[0].EnvFrom = []corev1.EnvFromSource{secretFrom("first")}
				p.Spec.Containers[0].Env = []corev1.EnvVar{secretEnv("E", "second")}
			})),
			wantErr: forbidden(`container c with envVar E referencing secret.secretName="second" is not allowed because service account sa does not reference that secret`),
		},
		{
			name:    "container envFrom",
			account: account("sa", enforcing("a")),
			attrs: create(newPod(named, func(p *corev1.Pod) {
				p.Spec.Containers[0].EnvFrom = []corev1.EnvFromSource{secretFrom("a"), secretFrom("x")}
			})),
			wantErr: forbidden(`container c with envFrom referencing secret.secretName="x" is not allowed because service account sa does not reference that secret`),
		},
		{
			name:    "volumes are checked before containers",
			account: account("sa", enforcing()),
			attrs: create(newPod(named, func(p *corev1.Pod) {
				p.Spec.Containers[0].EnvFrom = []corev1.EnvFromSource{secretFrom("x")}
				p.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "v"}}}}
			})),
			wantErr: forbidden(`volume with secret.secretName="v" is not allowed because service account sa does not reference that secret`),
		},
		{
			name:    "image pull secrets are checked against the account's",
			account: account("sa", enforcing("reg2")),
			attrs: create(newPod(named, func(p *corev1.Pod) {
				p.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "reg2"}}
			})),
			wantErr: forbidden(`imagePullSecrets[0].name="reg2" is not allowed because service account sa does not reference that imagePullSecret`),
		},
		{
			name:  "a mirror pod with nothing to refuse",
			attrs: create(newPod(func(p *corev1.Pod) { p.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: ""} })),
		},
		{
			name: "a mirror pod's empty secret names do not count",
			attrs: create(newPod(func(p *corev1.Pod) {
				p.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: ""}
				p.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: ""}}
			})),
		},
		{
			name: "a mirror pod's ephemeral container secrets count",
			attrs: create(newPod(ephemeral(corev1.EphemeralContainerCommon{Name: "d", EnvFrom: []corev1.EnvFromSource{secretFrom("s")}}), func(p *corev1.Pod) {
				p.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: ""}
			})),
			wantErr: forbidden("a mirror pod may not reference secrets"),
		},
		{
			name:    "ephemeral containers: env",
			account: account("sa", enforcing("a")),
			attrs:   ephemeralUpdate(newPod(named, ephemeral(corev1.EphemeralContainerCommon{Name: "d", Env: []corev1.EnvVar{secretEnv("E", "x")}}))),
			wantErr: internal(`ephemeral container d with envVar E referencing secret.secretName="x" is not allowed because service account sa does not reference that secret`),
		},
		{
			name:    "ephemeral containers: envFrom",
			account: account("sa", enforcing("a")),
			attrs:   ephemeralUpdate(newPod(named, ephemeral(corev1.EphemeralContainerCommon{Name: "d", EnvFrom: []corev1.EnvFromSource{secretFrom("x")}}))),
			wantErr: internal(`ephemeral container d with envFrom referencing secret.secretName="x" is not allowed because service account sa does not reference that secret`),
		},
		{
			name:    "ephemeral containers: listed secrets",
			account: account("sa", enforcing("a")),
			attrs:   ephemeralUpdate(newPod(named, ephemeral(corev1.EphemeralContainerCommon{Name: "d", EnvFrom: []corev1.EnvFromSource{secretFrom("a")}}))),
		},
		{
			name:    "ephemeral containers: no enforcement",
			account: account("sa"),
			attrs:   ephemeralUpdate(newPod(named, ephemeral(corev1.EphemeralContainerCommon{Name: "d", EnvFrom: []corev1.EnvFromSource{secretFrom("x")}}))),
		},
		{
			name:    "ephemeral containers: a missing account",
			attrs:   ephemeralUpdate(newPod(named)),
			wantErr: forbidden(`error looking up service account ns/sa: serviceaccount "sa" not found`),
		},
		{
			name:    "ephemeral containers: a pod without an account",
			attrs:   ephemeralUpdate(newPod()),
			wantErr: forbidden("no service account specified for pod ns/p"),
		},
		{
			name: "other pod updates are not checked",
			attrs: &admission.Attributes{Resource: podsGVR, Namespace: ns, Name: "p", Operation: admission.Update,
				Object: newPod(named), OldObject: newPod(named)},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &accounts{cached: map[string]*corev1.ServiceAccount{}, live: map[string]*corev1.ServiceAccount{}}
			if tc.account != nil {
				s.cached[tc.account.Name] = tc.account
			}
			before := tc.attrs.Object.DeepCopyObject()
			err := s.plugin(t).Validate(context.Background(), tc.attrs)
			if diff := cmp.Diff(tc.wantErr, statusOf(t, err)); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, tc.attrs.Object); diff != "" {
				t.Errorf("Validate changed the object (-before +after):\n%s", diff)
			}
		})
	}
}

func TestWaitEndsWithContext(t *testing.T) {
	p, err := New(
		func(context.Context, string, string) (*corev1.ServiceAccount, error) {
			return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "serviceaccounts"}, "default")
		},
		func(context.Context, string, string) (*corev1.ServiceAccount, error) {
			return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "serviceaccounts"}, "default")
		})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = p.Admit(ctx, create(newPod()))
	if diff := cmp.Diff(forbidden("error looking up service account ns/default: context canceled"), statusOf(t, err)); diff != "" {
		t.Errorf("error (-want +got):\n%s", diff)
	}
}

func TestNewNeedsLookups(t *testing.T) {
	if _, err := New(nil, nil); err == nil {
		t.Error("New without lookups succeeded")
	}
}

func TestRandomVolumeName(t *testing.T) {
	sa := func(context.Context, string, string) (*corev1.ServiceAccount, error) { return account("default"), nil }
	p, err := New(sa, sa)
	if err != nil {
		t.Fatal(err)
	}
	pd := newPod()
	if err := p.Admit(context.Background(), create(pd)); err != nil {
		t.Fatal(err)
	}
	name := pd.Spec.Volumes[0].Name
	const alphabet = "bcdfghjklmnpqrstvwxz2456789" // apimachinery's name generator's
	if len(name) != len(VolumeNamePrefix)+5 || name[:len(VolumeNamePrefix)] != VolumeNamePrefix {
		t.Fatalf("volume name %q, want %s and five characters", name, VolumeNamePrefix)
	}
	for _, r := range name[len(VolumeNamePrefix):] {
		if !containsRune(alphabet, r) {
			t.Errorf("volume name %q has %q, outside the generator's alphabet", name, r)
		}
	}
	if got := pd.Spec.Containers[0].VolumeMounts[0].Name; got != name {
		t.Errorf("mount of %q, volume %q", got, name)
	}
}

func containsRune(s string, r rune) bool {
	for _, c := range s {
		if c == r {
			return true
		}
	}
	return false
}

package serviceaccount

import (
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/portcullis/portcullis/internal/admission/podrefs"
)

// enforceMountable says whether the account limits its pods to the
// secrets it lists: only an annotation that parses as true does.
func enforceMountable(sa *corev1.ServiceAccount) bool {
	v, ok := sa.Annotations[EnforceMountableSecretsAnnotation]
	if !ok {
		return false
	}
	on, _ := strconv.ParseBool(v)
	return on
}

func mountableSecrets(sa *corev1.ServiceAccount) map[string]bool {
	names := make(map[string]bool, len(sa.Secrets))
	for _, s := range sa.Secrets {
		names[s.Name] = true
	}
	return names
}

// The messages quote names with "%s" rather than %q, as kube-apiserver's
// do: this runs in Admit too, before validation, and a name with a quote
// or control character must read the same.

// checkMountable refuses the first secret reference of a new pod that the
// account does not list, in kube-apiserver's order: secret volumes (other
// volume types that name secrets are not checked), init containers,
// containers, then image pull secrets against the account's.
func checkMountable(sa *corev1.ServiceAccount, pd *corev1.Pod) error {
	allowed := mountableSecrets(sa)
	for _, v := range pd.Spec.Volumes {
		if v.Secret == nil {
			continue
		}
		if !allowed[v.Secret.SecretName] {
			return fmt.Errorf("volume with secret.secretName=\"%s\" is not allowed because service account %s does not reference that secret", v.Secret.SecretName, sa.Name)
		}
	}
	for _, c := range pd.Spec.InitContainers {
		if err := checkContainerSecrets("init container", &c, allowed, sa.Name); err != nil {
			return err
		}
	}
	for _, c := range pd.Spec.Containers {
		if err := checkContainerSecrets("container", &c, allowed, sa.Name); err != nil {
			return err
		}
	}
	pullSecrets := make(map[string]bool, len(sa.ImagePullSecrets))
	for _, s := range sa.ImagePullSecrets {
		pullSecrets[s.Name] = true
	}
	for i, ref := range pd.Spec.ImagePullSecrets {
		if !pullSecrets[ref.Name] {
			return fmt.Errorf("imagePullSecrets[%d].name=\"%s\" is not allowed because service account %s does not reference that imagePullSecret", i, ref.Name, sa.Name)
		}
	}
	return nil
}

// checkEphemeralMountable checks the env and envFrom secrets of all the
// pod's ephemeral containers, the old ones too.
func checkEphemeralMountable(sa *corev1.ServiceAccount, pd *corev1.Pod) error {
	allowed := mountableSecrets(sa)
	for i := range pd.Spec.EphemeralContainers {
		c := (*corev1.Container)(&pd.Spec.EphemeralContainers[i].EphemeralContainerCommon)
		if err := checkContainerSecrets("ephemeral container", c, allowed, sa.Name); err != nil {
			return err
		}
	}
	return nil
}

// checkContainerSecrets checks env before envFrom, as kube-apiserver does.
// kind is how its messages name the container.
func checkContainerSecrets(kind string, c *corev1.Container, allowed map[string]bool, account string) error {
	for _, env := range c.Env {
		if env.ValueFrom == nil || env.ValueFrom.SecretKeyRef == nil {
			continue
		}
		if name := env.ValueFrom.SecretKeyRef.Name; !allowed[name] {
			return fmt.Errorf("%s %s with envVar %s referencing secret.secretName=\"%s\" is not allowed because service account %s does not reference that secret", kind, c.Name, env.Name, name, account)
		}
	}
	for _, from := range c.EnvFrom {
		if from.SecretRef == nil {
			continue
		}
		if name := from.SecretRef.Name; !allowed[name] {
			return fmt.Errorf("%s %s with envFrom referencing secret.secretName=\"%s\" is not allowed because service account %s does not reference that secret", kind, c.Name, name, account)
		}
	}
	return nil
}

// referencesSecrets says whether a pod names any secret, by the rules of
// kube-apiserver's pod secret visitor: image pull secrets, env and envFrom
// of every container (ephemeral ones too) and every volume type with a
// secret reference; empty names do not count.
func referencesSecrets(pd *corev1.Pod) bool {
	for _, r := range pd.Spec.ImagePullSecrets {
		if r.Name != "" {
			return true
		}
	}
	containers := append(append([]corev1.Container(nil), pd.Spec.InitContainers...), pd.Spec.Containers...)
	for i := range pd.Spec.EphemeralContainers {
		containers = append(containers, corev1.Container(pd.Spec.EphemeralContainers[i].EphemeralContainerCommon))
	}
	for _, c := range containers {
		for _, from := range c.EnvFrom {
			if from.SecretRef != nil && from.SecretRef.Name != "" {
				return true
			}
		}
		for _, env := range c.Env {
			if env.ValueFrom != nil && env.ValueFrom.SecretKeyRef != nil && env.ValueFrom.SecretKeyRef.Name != "" {
				return true
			}
		}
	}
	for _, v := range pd.Spec.Volumes {
		if podrefs.VolumeSecret(&v.VolumeSource) != "" {
			return true
		}
	}
	return false
}

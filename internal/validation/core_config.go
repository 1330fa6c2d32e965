package validation

import (
	"encoding/json"
	"reflect"
	"slices"

	corev1 "k8s.io/api/core/v1"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// maxDataSize bounds a ConfigMap's or Secret's payload: 1 MiB, what etcd
// comfortably stores in one value.
const maxDataSize = 1 * 1024 * 1024

const immutableMsg = "field is immutable when `immutable` is set"

func validateConfigMap(cm *corev1.ConfigMap) field.ErrorList {
	errs := validateMeta(&cm.ObjectMeta, true, nameIsDNSSubdomain)
	size := 0
	for _, key := range sortedKeys(cm.Data) {
		value := cm.Data[key]
		kp := field.NewPath("data").Key(key)
		for _, msg := range utilvalidation.IsConfigMapKey(key) {
			errs = append(errs, field.Invalid(kp, key, msg))
		}
		if _, dup := cm.BinaryData[key]; dup {
			errs = append(errs, field.Invalid(kp, key, "duplicate of key present in binaryData"))
		}
		size += len(value)
	}
	for _, key := range sortedKeys(cm.BinaryData) {
		value := cm.BinaryData[key]
		for _, msg := range utilvalidation.IsConfigMapKey(key) {
			errs = append(errs, field.Invalid(field.NewPath("binaryData").Key(key), key, msg))
		}
		size += len(value)
	}
	if size > maxDataSize {
		// The empty path says the limit applies to the whole object.
		errs = append(errs, field.TooLong(field.NewPath(""), "", maxDataSize))
	}
	return errs
}

func validateConfigMapUpdate(cm, old *corev1.ConfigMap) field.ErrorList {
	errs := validateMetaUpdate(&cm.ObjectMeta, &old.ObjectMeta)
	if old.Immutable != nil && *old.Immutable {
		if cm.Immutable == nil || !*cm.Immutable {
			errs = append(errs, field.Forbidden(field.NewPath("immutable"), immutableMsg))
		}
		if !equalStringMaps(cm.Data, old.Data) {
			errs = append(errs, field.Forbidden(field.NewPath("data"), immutableMsg))
		}
		if !equalByteMaps(cm.BinaryData, old.BinaryData) {
			errs = append(errs, field.Forbidden(field.NewPath("binaryData"), immutableMsg))
		}
	}
	return append(errs, validateConfigMap(cm)...)
}

func validateSecret(s *corev1.Secret) field.ErrorList {
	errs := validateMeta(&s.ObjectMeta, true, nameIsDNSSubdomain)
	dataPath := field.NewPath("data")
	size := 0
	for _, key := range sortedKeys(s.Data) {
		value := s.Data[key]
		for _, msg := range utilvalidation.IsConfigMapKey(key) {
			errs = append(errs, field.Invalid(dataPath.Key(key), key, msg))
		}
		size += len(value)
	}
	if size > maxDataSize {
		errs = append(errs, field.TooLong(dataPath, "", maxDataSize))
	}
	// Each well-known type promises its consumers certain keys.
	switch s.Type {
	case corev1.SecretTypeServiceAccountToken:
		if s.Annotations[corev1.ServiceAccountNameKey] == "" {
			errs = append(errs, field.Required(field.NewPath("metadata", "annotations").Key(corev1.ServiceAccountNameKey), ""))
		}
	case corev1.SecretTypeDockercfg:
		errs = append(errs, requireJSONKey(s.Data, corev1.DockerConfigKey, dataPath)...)
	case corev1.SecretTypeDockerConfigJson:
		errs = append(errs, requireJSONKey(s.Data, corev1.DockerConfigJsonKey, dataPath)...)
	case corev1.SecretTypeBasicAuth:
		_, user := s.Data[corev1.BasicAuthUsernameKey]
		_, pass := s.Data[corev1.BasicAuthPasswordKey]
		if !user && !pass {
			errs = append(errs,
				field.Required(dataPath.Key(corev1.BasicAuthUsernameKey), ""),
				field.Required(dataPath.Key(corev1.BasicAuthPasswordKey), ""))
		}
	case corev1.SecretTypeSSHAuth:
		if len(s.Data[corev1.SSHAuthPrivateKey]) == 0 {
			errs = append(errs, field.Required(dataPath.Key(corev1.SSHAuthPrivateKey), ""))
		}
	case corev1.SecretTypeTLS:
		if _, ok := s.Data[corev1.TLSCertKey]; !ok {
			errs = append(errs, field.Required(dataPath.Key(corev1.TLSCertKey), ""))
		}
		if _, ok := s.Data[corev1.TLSPrivateKeyKey]; !ok {
			errs = append(errs, field.Required(dataPath.Key(corev1.TLSPrivateKeyKey), ""))
		}
	}
	return errs
}

func requireJSONKey(data map[string][]byte, key string, dataPath *field.Path) field.ErrorList {
	raw, ok := data[key]
	if !ok {
		return field.ErrorList{field.Required(dataPath.Key(key), "")}
	}
	if err := json.Unmarshal(raw, &map[string]any{}); err != nil {
		return field.ErrorList{field.Invalid(dataPath.Key(key), "<secret contents redacted>", err.Error())}
	}
	return nil
}

func validateSecretUpdate(s, old *corev1.Secret) field.ErrorList {
	errs := validateMetaUpdate(&s.ObjectMeta, &old.ObjectMeta)
	typ := s.Type
	if typ == "" {
		// An update that omits the type keeps the stored one.
		typ = old.Type
	}
	errs = append(errs, immutable(typ, old.Type, field.NewPath("type"))...)
	if old.Immutable != nil && *old.Immutable {
		if s.Immutable == nil || !*s.Immutable {
			errs = append(errs, field.Forbidden(field.NewPath("immutable"), immutableMsg))
		}
		if !equalByteMaps(s.Data, old.Data) {
			errs = append(errs, field.Forbidden(field.NewPath("data"), immutableMsg))
		}
	}
	withType := *s
	withType.Type = typ
	return append(errs, validateSecret(&withType)...)
}

func validateServiceAccount(sa *corev1.ServiceAccount) field.ErrorList {
	return validateMeta(&sa.ObjectMeta, true, nameIsDNSSubdomain)
}

// equalStringMaps and equalByteMaps treat nil and empty as equal, as
// apimachinery's semantic equality does.
func equalStringMaps(a, b map[string]string) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}

func equalByteMaps(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || string(v) != string(w) {
			return false
		}
	}
	return true
}

// sortedKeys gives errors a stable order; the reference reports them in map
// order, which is random.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

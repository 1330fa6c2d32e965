package config

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"
)

// The messages are kube-apiserver's, so that its users recognise them.
const (
	atLeastOneFmt        = "at least one %s is required"
	oneProviderMsg       = "more than one provider specified in a single element, should split into different list elements"
	noProviderMsg        = "provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity"
	keyLenFmt            = "secret is not of the expected length, got %d, expected one of %v"
	base64Msg            = "secrets must be base64 encoded"
	mandatoryFmt         = "%s is a mandatory field for a %s"
	kmsSchemeFmt         = "unsupported scheme %q for KMS provider, only unix is supported"
	kmsURLFmt            = "invalid endpoint for kms provider, error: %v"
	kmsNameColonFmt      = "invalid KMS provider name %s, must not contain ':'"
	kmsNameDuplicateFmt  = "duplicate KMS provider name %s, names must be unique"
	kmsCacheSizeV2Msg    = "cachesize is not supported in v2"
	positiveFmt          = "%s should be a positive value"
	positiveOrNegFmt     = "%s should be a positive value, or negative to disable"
	duplicateResourceMsg = "the same resource cannot be specified multiple times"
	overlapMsg           = "using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked"
	capitalMsg           = "resource name should not contain capital letters"
	starMsg              = "use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources"
	nonRESTMsg           = "resources which do not have REST API/s cannot be encrypted"
	eventsGroupMsg       = "'*.events.k8s.io' objects are stored using the 'events' API group in etcd. Use 'events' instead in the config file"
	extensionsGroupMsg   = "'extensions' group has been removed and cannot be used for encryption"
	acrossGroupsMsg      = "encrypting the same resource across groups is not supported"
	maskedFmt            = "resource %q is masked by earlier rule %q"

	// kube-apiserver formats the field name where it means the value; the
	// value is shown by "Invalid value" anyway, so the text is kept as is.
	kmsAPIVersionMsg = "unsupported apiVersion apiVersion for KMS provider, only v1 and v2 are supported"

	// kube-apiserver refuses KMS v1 unless its KMSv1 feature gate is on;
	// portcullis has no such gate and no v1 envelope, so the advice to set
	// the gate becomes a plain statement. The double space is the
	// reference's.
	kmsV1Msg = "KMSv1 is deprecated and will only receive security updates going forward. Use KMSv2 instead.  " +
		"portcullis does not implement KMS v1."
)

var (
	// aesKeySizes are the AES-128/192/256 key lengths; kube-apiserver
	// accepts all three for aescbc as well as aesgcm, though its
	// documentation lists 32 bytes for aescbc.
	aesKeySizes       = []int{16, 24, 32}
	secretboxKeySizes = []int{32}

	anyGroupAnyResource = schema.GroupResource{Group: "*", Resource: "*"}

	// resourcesWithoutREST are stored by the server itself, not through
	// the REST storage that encrypts.
	resourcesWithoutREST = sets.New("apiserveripinfo", "serviceipallocations", "servicenodeportallocations")
)

// validate checks a defaulted configuration with kube-apiserver's rules,
// plus the two it applies only when building transformers (masking across
// entries, KMS v1). reload selects the stricter KMS name rule of
// --encryption-provider-config-automatic-reload.
func validate(c *apiserverv1.EncryptionConfiguration, reload bool) field.ErrorList {
	root := field.NewPath("resources")
	if len(c.Resources) == 0 {
		return field.ErrorList{field.Required(root, fmt.Sprintf(atLeastOneFmt, root))}
	}
	var errs field.ErrorList
	kmsNames := sets.New[string]()
	for i, rc := range c.Resources {
		r := root.Index(i).Child("resources")
		p := root.Index(i).Child("providers")
		if len(rc.Resources) == 0 {
			errs = append(errs, field.Required(r, fmt.Sprintf(atLeastOneFmt, r)))
		}
		errs = append(errs, validateResourceOverlap(rc.Resources, r)...)
		for j, res := range rc.Resources {
			if msg := resourceNameProblem(res); msg != "" {
				errs = append(errs, field.Invalid(r.Index(j), res, msg))
			}
		}
		if len(rc.Providers) == 0 {
			errs = append(errs, field.Required(p, fmt.Sprintf(atLeastOneFmt, p)))
		}
		for j, pc := range rc.Providers {
			errs = append(errs, validateProvider(pc, p.Index(j), kmsNames, reload)...)
		}
	}
	return append(errs, validateMasking(c, root)...)
}

// validateResourceOverlap reports, once each, a resource listed twice and
// a wildcard that covers another resource of the same list. It gives the
// same verdicts as kube-apiserver's pairwise comparison in linear time, so
// that a huge list cannot stall the loader.
func validateResourceOverlap(resources []string, path *field.Path) field.ErrorList {
	if len(resources) < 2 {
		return nil
	}
	seen := make(map[schema.GroupResource]bool, len(resources))
	inGroup := map[string]int{}
	wildGroup := map[string]bool{}
	var duplicate, overlap bool
	for _, res := range resources {
		gr := schema.ParseGroupResource(res)
		if seen[gr] {
			duplicate = true
		}
		seen[gr] = true
		inGroup[gr.Group]++
		if gr.Resource == "*" {
			wildGroup[gr.Group] = true
		}
		if gr == anyGroupAnyResource {
			// "*.*" overlaps whatever else is listed beside it.
			overlap = true
		}
	}
	for g := range wildGroup {
		if inGroup[g] > 1 {
			overlap = true
		}
	}
	var errs field.ErrorList
	if duplicate {
		errs = append(errs, field.Invalid(path, resources, duplicateResourceMsg))
	}
	if overlap {
		errs = append(errs, field.Invalid(path, resources, overlapMsg))
	}
	return errs
}

// resourceNameProblem returns why res cannot be named in a resource list,
// or "" when it can.
func resourceNameProblem(res string) string {
	if strings.ToLower(res) != res {
		return capitalMsg
	}
	if res == "*" {
		return starMsg
	}
	if resourcesWithoutREST.Has(res) {
		return nonRESTMsg
	}
	gr := schema.ParseGroupResource(res)
	switch {
	case gr.Group == "events.k8s.io":
		return eventsGroupMsg
	case gr.Group == "extensions":
		return extensionsGroupMsg
	case gr.Group == "*" && gr.Resource != "*":
		return acrossGroupsMsg
	}
	return ""
}

// validateMasking refuses a resource that a wildcard of an earlier entry
// already covers: the earlier entry would always win, so the later one
// could never take effect. Within one entry the overlap rule covers this;
// names already refused are skipped to avoid a second error for them.
func validateMasking(c *apiserverv1.EncryptionConfiguration, root *field.Path) field.ErrorList {
	var errs field.ErrorList
	earlier := sets.New[schema.GroupResource]()
	for i, rc := range c.Resources {
		var these []schema.GroupResource
		for j, res := range rc.Resources {
			if resourceNameProblem(res) != "" {
				continue
			}
			gr := schema.ParseGroupResource(res)
			these = append(these, gr)
			for _, rule := range []schema.GroupResource{{Group: gr.Group, Resource: "*"}, anyGroupAnyResource} {
				if earlier.Has(rule) {
					errs = append(errs, field.Forbidden(root.Index(i).Child("resources").Index(j),
						fmt.Sprintf(maskedFmt, grString(gr), grString(rule))))
					break
				}
			}
		}
		earlier.Insert(these...)
	}
	return errs
}

// grString prints a group resource as it is written in the file.
func grString(gr schema.GroupResource) string {
	if gr.Group == "" && gr.Resource == "*" {
		return "*."
	}
	return gr.String()
}

func validateProvider(pc apiserverv1.ProviderConfiguration, path *field.Path, kmsNames sets.Set[string], reload bool) field.ErrorList {
	var errs field.ErrorList
	n := 0
	for _, set := range []bool{pc.KMS != nil, pc.AESGCM != nil, pc.AESCBC != nil, pc.Secretbox != nil, pc.Identity != nil} {
		if set {
			n++
		}
	}
	// kube-apiserver prints the provider here; its secrets must not be.
	switch {
	case n == 0:
		errs = append(errs, field.Invalid(path, redactProvider(pc), noProviderMsg))
	case n > 1:
		errs = append(errs, field.Invalid(path, redactProvider(pc), oneProviderMsg))
	}
	// As kube-apiserver, the first provider set is still checked when
	// several are, so that every problem shows at once.
	switch {
	case pc.KMS != nil:
		errs = append(errs, validateKMS(pc.KMS, path.Child("kms"), kmsNames, reload)...)
		kmsNames.Insert(pc.KMS.Name)
	case pc.AESGCM != nil:
		errs = append(errs, validateKeys(pc.AESGCM.Keys, path.Child("aesgcm", "keys"), aesKeySizes)...)
	case pc.AESCBC != nil:
		errs = append(errs, validateKeys(pc.AESCBC.Keys, path.Child("aescbc", "keys"), aesKeySizes)...)
	case pc.Secretbox != nil:
		errs = append(errs, validateKeys(pc.Secretbox.Keys, path.Child("secretbox", "keys"), secretboxKeySizes)...)
	}
	return errs
}

func validateKeys(keys []apiserverv1.Key, path *field.Path, sizes []int) field.ErrorList {
	if len(keys) == 0 {
		return field.ErrorList{field.Required(path, fmt.Sprintf(atLeastOneFmt, "keys"))}
	}
	var errs field.ErrorList
	for i, k := range keys {
		p := path.Index(i)
		if k.Name == "" {
			errs = append(errs, field.Required(p.Child("name"), fmt.Sprintf(mandatoryFmt, "name", "key")))
		}
		if k.Secret == "" {
			errs = append(errs, field.Required(p.Child("secret"), fmt.Sprintf(mandatoryFmt, "secret", "key")))
			continue
		}
		secret, err := base64.StdEncoding.DecodeString(k.Secret)
		if err != nil {
			errs = append(errs, field.Invalid(p.Child("secret"), redacted, base64Msg))
			continue
		}
		if !containsInt(sizes, len(secret)) {
			errs = append(errs, field.Invalid(p.Child("secret"), redacted, fmt.Sprintf(keyLenFmt, len(secret), sizes)))
		}
	}
	return errs
}

func containsInt(list []int, n int) bool {
	for _, v := range list {
		if v == n {
			return true
		}
	}
	return false
}

func validateKMS(k *apiserverv1.KMSConfiguration, path *field.Path, names sets.Set[string], reload bool) field.ErrorList {
	var errs field.ErrorList

	namePath := path.Child("name")
	if k.Name == "" {
		errs = append(errs, field.Required(namePath, fmt.Sprintf(mandatoryFmt, "name", "provider")))
	}
	// The v2 name is part of the stored prefix ("k8s:enc:kms:v2:NAME:"),
	// so it may not contain the separator.
	if k.APIVersion != kmsV1 && strings.Contains(k.Name, ":") {
		errs = append(errs, field.Invalid(namePath, k.Name, fmt.Sprintf(kmsNameColonFmt, k.Name)))
	}
	// v2 names are written into stored data and must be unique among all
	// KMS providers; kube-apiserver holds v1 names to that only when the
	// file is reloaded automatically.
	if (reload || k.APIVersion != kmsV1) && names.Has(k.Name) {
		errs = append(errs, field.Invalid(namePath, k.Name, fmt.Sprintf(kmsNameDuplicateFmt, k.Name)))
	}

	if k.Timeout == nil || k.Timeout.Duration <= 0 {
		errs = append(errs, field.Invalid(path.Child("timeout"), k.Timeout, fmt.Sprintf(positiveFmt, "timeout")))
	}

	errs = append(errs, validateKMSEndpoint(k.Endpoint, path.Child("endpoint"))...)

	cachePath := path.Child("cachesize")
	if k.APIVersion != kmsV1 && k.CacheSize != nil {
		errs = append(errs, field.Invalid(cachePath, *k.CacheSize, kmsCacheSizeV2Msg))
	}
	if k.APIVersion == kmsV1 && k.CacheSize != nil && *k.CacheSize == 0 {
		errs = append(errs, field.Invalid(cachePath, *k.CacheSize, fmt.Sprintf(positiveOrNegFmt, "cachesize")))
	}

	versionPath := path.Child("apiVersion")
	switch k.APIVersion {
	case kmsV2:
	case kmsV1:
		errs = append(errs, field.Invalid(versionPath, k.APIVersion, kmsV1Msg))
	default:
		errs = append(errs, field.Invalid(versionPath, k.APIVersion, kmsAPIVersionMsg))
	}
	return errs
}

func validateKMSEndpoint(endpoint string, path *field.Path) field.ErrorList {
	if endpoint == "" {
		return field.ErrorList{field.Invalid(path, "", fmt.Sprintf(mandatoryFmt, "endpoint", "kms"))}
	}
	u, err := url.Parse(endpoint)
	if err != nil {
		return field.ErrorList{field.Invalid(path, endpoint, fmt.Sprintf(kmsURLFmt, err))}
	}
	if u.Scheme != "unix" {
		return field.ErrorList{field.Invalid(path, endpoint, fmt.Sprintf(kmsSchemeFmt, u.Scheme))}
	}
	return nil
}

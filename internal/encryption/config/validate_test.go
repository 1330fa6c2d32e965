package config

import (
	"errors"
	"testing"
)

const header = "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\n"

func doc(body string) []byte { return []byte(header + body) }

// Keys of each length, base64-encoded.
const (
	key8  = "dbGtQe0MfKs="
	key16 = "MsND4CUCwXSF3F0Tdht1RQ=="
	key20 = "IEiaKCeT83Tg9Q8+wirgUFeVOeU="
	key24 = "9dwzkV9Kt5kNbdsWwScMvZdeYT0h5kQ0"
	key32 = "0JFarMtv4Qa4Hn+YQpuvZVAxOaWNa69W0qvkI0F5P/U="
)

// provider is an entry for secrets with one provider.
func provider(p string) []byte {
	return doc("resources:\n- resources: [secrets]\n  providers:\n  - " + p + "\n")
}

// kms is an entry for secrets with one KMS provider.
func kms(fields string) []byte { return provider("kms: {" + fields + "}") }

const invalid = "invalid encryption provider configuration: "

// TestParse covers every rule: each case gives the whole error (or "").
func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name   string
		data   []byte
		reload bool
		want   string
		is     error
	}{
		// Decoding.
		{name: "empty", data: nil, want: "encryption provider configuration is empty", is: ErrEmpty},
		{name: "white space", data: []byte(" \n\t\n"), want: "encryption provider configuration is empty", is: ErrEmpty},
		{name: "syntax", data: doc("resources: [\n"), is: ErrDecode,
			want: "error decoding encryption provider configuration: yaml: line 3: did not find expected node content"},
		{name: "no apiVersion", data: []byte("kind: EncryptionConfiguration\n"), is: ErrDecode,
			want: "error decoding encryption provider configuration: apiVersion is missing"},
		{name: "other apiVersion", data: []byte("apiVersion: apiserver.config.k8s.io/v1alpha1\nkind: EncryptionConfiguration\n"), is: ErrDecode,
			want: `error decoding encryption provider configuration: unsupported apiVersion "apiserver.config.k8s.io/v1alpha1", want apiserver.config.k8s.io/v1`},
		{name: "legacy form is read, then validated", data: []byte("apiVersion: v1\nkind: EncryptionConfig\n"), is: ErrInvalid,
			want: "invalid encryption provider configuration: resources: Required value: at least one resources is required"},
		{name: "no kind", data: []byte("apiVersion: apiserver.config.k8s.io/v1\n"), is: ErrDecode,
			want: "error decoding encryption provider configuration: kind is missing"},
		{name: "other kind", data: []byte("apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfig\n"), is: ErrDecode,
			want: `error decoding encryption provider configuration: expected kind EncryptionConfiguration, got "EncryptionConfig"`},
		{name: "unknown field", data: provider("identity: {}\n  extra: 1"), is: ErrDecode,
			want: `error decoding encryption provider configuration: strict decoding error: unknown field "resources[0].extra"`},
		{name: "wrong case", data: doc("Resources: []\n"), is: ErrDecode,
			want: `error decoding encryption provider configuration: strict decoding error: unknown field "Resources"`},
		{name: "duplicate field", data: doc("resources: []\nresources: []\n"), is: ErrDecode,
			want: "error decoding encryption provider configuration: yaml: unmarshal errors:\n  line 4: key \"resources\" already set in map"},
		{name: "wrong type", data: doc("resources: {}\n"), is: ErrDecode,
			want: "error decoding encryption provider configuration: json: cannot unmarshal object into Go struct field EncryptionConfiguration.resources of type []v1.ResourceConfiguration"},
		{name: "json", data: []byte(`{"apiVersion":"apiserver.config.k8s.io/v1","kind":"EncryptionConfiguration","resources":[{"resources":["secrets"],"providers":[{"identity":{}}]}]}`)},
		{name: "json duplicate field", is: ErrDecode,
			data: []byte(`{"apiVersion":"apiserver.config.k8s.io/v1","kind":"EncryptionConfiguration","resources":[{"resources":["secrets"],"providers":[{"aescbc":{"keys":[{"name":"k","secret":"` + key32 + `","secret":"` + key16 + `"}]}}]}]}`),
			want: `error decoding encryption provider configuration: strict decoding error: duplicate field "resources[0].providers[0].aescbc.keys[0].secret"`},

		// The list of entries and each entry's lists.
		{name: "no entries", data: doc("resources: []\n"), is: ErrInvalid,
			want: invalid + "resources: Required value: at least one resources is required"},
		{name: "entries missing", data: doc(""), is: ErrInvalid,
			want: invalid + "resources: Required value: at least one resources is required"},
		{name: "entry without resources", data: doc("resources:\n- providers: [identity: {}]\n"), is: ErrInvalid,
			want: invalid + "resources[0].resources: Required value: at least one resources[0].resources is required"},
		{name: "entry without providers", data: doc("resources:\n- resources: [secrets]\n"), is: ErrInvalid,
			want: invalid + "resources[0].providers: Required value: at least one resources[0].providers is required"},

		// Resource lists.
		{name: "duplicate", data: doc("resources:\n- resources: [secrets, secrets.]\n  providers: [identity: {}]\n"), is: ErrInvalid,
			want: invalid + `resources[0].resources: Invalid value: ["secrets","secrets."]: the same resource cannot be specified multiple times`},
		{name: "overlap core", data: doc("resources:\n- resources: ['*.', configmaps]\n  providers: [identity: {}]\n"), is: ErrInvalid,
			want: invalid + `resources[0].resources: Invalid value: ["*.","configmaps"]: using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked`},
		{name: "overlap group", data: doc("resources:\n- resources: [deployments.apps, '*.apps']\n  providers: [identity: {}]\n"), is: ErrInvalid,
			want: invalid + `resources[0].resources: Invalid value: ["deployments.apps","*.apps"]: using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked`},
		{name: "overlap all", data: doc("resources:\n- resources: ['*.*', pods]\n  providers: [identity: {}]\n"), is: ErrInvalid,
			want: invalid + `resources[0].resources: Invalid value: ["*.*","pods"]: using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked`},
		{name: "no overlap across groups", data: doc("resources:\n- resources: ['*.', '*.apps', secrets.batch]\n  providers: [identity: {}]\n")},
		{name: "wildcard twice", data: doc("resources:\n- resources: ['*.*', '*.*']\n  providers: [identity: {}]\n"), is: ErrInvalid,
			want: invalid + `[resources[0].resources: Invalid value: ["*.*","*.*"]: the same resource cannot be specified multiple times, ` +
				`resources[0].resources: Invalid value: ["*.*","*.*"]: using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked]`},
		{name: "capital", data: doc("resources:\n- resources: [Secrets]\n  providers: [identity: {}]\n"), is: ErrInvalid,
			want: invalid + `resources[0].resources[0]: Invalid value: "Secrets": resource name should not contain capital letters`},
		{name: "star", data: doc("resources:\n- resources: ['*']\n  providers: [identity: {}]\n"), is: ErrInvalid,
			want: invalid + `resources[0].resources[0]: Invalid value: "*": use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources`},
		{name: "apiserveripinfo", data: doc("resources:\n- resources: [apiserveripinfo]\n  providers: [identity: {}]\n"), is: ErrInvalid,
			want: invalid + `resources[0].resources[0]: Invalid value: "apiserveripinfo": resources which do not have REST API/s cannot be encrypted`},
		{name: "serviceipallocations", data: doc("resources:\n- resources: [serviceipallocations]\n  providers: [identity: {}]\n"), is: ErrInvalid,
			want: invalid + `resources[0].resources[0]: Invalid value: "serviceipallocations": resources which do not have REST API/s cannot be encrypted`},
		{name: "servicenodeportallocations", data: doc("resources:\n- resources: [servicenodeportallocations]\n  providers: [identity: {}]\n"), is: ErrInvalid,
			want: invalid + `resources[0].resources[0]: Invalid value: "servicenodeportallocations": resources which do not have REST API/s cannot be encrypted`},
		{name: "events.k8s.io", data: doc("resources:\n- resources: ['*.events.k8s.io']\n  providers: [identity: {}]\n"), is: ErrInvalid,
			want: invalid + `resources[0].resources[0]: Invalid value: "*.events.k8s.io": '*.events.k8s.io' objects are stored using the 'events' API group in etcd. Use 'events' instead in the config file`},
		{name: "extensions", data: doc("resources:\n- resources: [ingresses.extensions]\n  providers: [identity: {}]\n"), is: ErrInvalid,
			want: invalid + `resources[0].resources[0]: Invalid value: "ingresses.extensions": 'extensions' group has been removed and cannot be used for encryption`},
		{name: "across groups", data: doc("resources:\n- resources: [secrets.*]\n  providers: [identity: {}]\n"), is: ErrInvalid,
			want: invalid + `resources[0].resources[0]: Invalid value: "secrets.*": encrypting the same resource across groups is not supported`},
		{name: "custom resource", data: doc("resources:\n- resources: [pandas.awesome.bears.example]\n  providers: [identity: {}]\n")},

		// Masking across entries (kube-apiserver reports it when building
		// its transformers).
		{name: "masked by core wildcard", data: doc("resources:\n- resources: ['*.']\n  providers: [identity: {}]\n- resources: [secrets]\n  providers: [identity: {}]\n"), is: ErrInvalid,
			want: invalid + `resources[1].resources[0]: Forbidden: resource "secrets" is masked by earlier rule "*."`},
		{name: "masked by group wildcard", data: doc("resources:\n- resources: ['*.apps']\n  providers: [identity: {}]\n- resources: [deployments.apps]\n  providers: [identity: {}]\n"), is: ErrInvalid,
			want: invalid + `resources[1].resources[0]: Forbidden: resource "deployments.apps" is masked by earlier rule "*.apps"`},
		{name: "masked by all", data: doc("resources:\n- resources: ['*.*']\n  providers: [identity: {}]\n- resources: [secrets]\n  providers: [identity: {}]\n"), is: ErrInvalid,
			want: invalid + `resources[1].resources[0]: Forbidden: resource "secrets" is masked by earlier rule "*.*"`},
		{name: "core wildcard masked by all", data: doc("resources:\n- resources: ['*.*']\n  providers: [identity: {}]\n- resources: ['*.']\n  providers: [identity: {}]\n"), is: ErrInvalid,
			want: invalid + `resources[1].resources[0]: Forbidden: resource "*." is masked by earlier rule "*.*"`},
		{name: "wildcard repeated", data: doc("resources:\n- resources: ['*.apps']\n  providers: [identity: {}]\n- resources: ['*.apps']\n  providers: [identity: {}]\n"), is: ErrInvalid,
			want: invalid + `resources[1].resources[0]: Forbidden: resource "*.apps" is masked by earlier rule "*.apps"`},
		{name: "exact before wildcard", data: doc("resources:\n- resources: [secrets]\n  providers: [identity: {}]\n- resources: ['*.']\n  providers: [identity: {}]\n- resources: ['*.*']\n  providers: [identity: {}]\n")},
		{name: "exact repeated across entries", data: doc("resources:\n- resources: [secrets]\n  providers: [identity: {}]\n- resources: [secrets]\n  providers: [identity: {}]\n")},
		{name: "refused name not reported as masked", data: doc("resources:\n- resources: ['*.*']\n  providers: [identity: {}]\n- resources: [Secrets]\n  providers: [identity: {}]\n"), is: ErrInvalid,
			want: invalid + `resources[1].resources[0]: Invalid value: "Secrets": resource name should not contain capital letters`},

		// Providers.
		{name: "no provider", data: provider("{}"), is: ErrInvalid,
			want: invalid + "resources[0].providers[0]: Invalid value: {}: provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity"},
		{name: "two providers", data: provider("{identity: {}, aescbc: {keys: [{name: k, secret: " + key32 + "}]}}"), is: ErrInvalid,
			want: invalid + `resources[0].providers[0]: Invalid value: {"aescbc":{"keys":[{"name":"k","secret":"REDACTED"}]},"identity":{}}: more than one provider specified in a single element, should split into different list elements`},
		{name: "two providers, the first checked", data: provider("{identity: {}, aesgcm: {keys: []}}"), is: ErrInvalid,
			want: invalid + `[resources[0].providers[0]: Invalid value: {"aesgcm":{"keys":[]},"identity":{}}: more than one provider specified in a single element, should split into different list elements, ` +
				"resources[0].providers[0].aesgcm.keys: Required value: at least one keys is required]"},
		{name: "identity", data: provider("identity: {}")},

		// Keys.
		{name: "aesgcm no keys", data: provider("aesgcm: {}"), is: ErrInvalid,
			want: invalid + "resources[0].providers[0].aesgcm.keys: Required value: at least one keys is required"},
		{name: "aescbc no keys", data: provider("aescbc: {keys: []}"), is: ErrInvalid,
			want: invalid + "resources[0].providers[0].aescbc.keys: Required value: at least one keys is required"},
		{name: "secretbox no keys", data: provider("secretbox: {}"), is: ErrInvalid,
			want: invalid + "resources[0].providers[0].secretbox.keys: Required value: at least one keys is required"},
		{name: "key without name", data: provider("aesgcm: {keys: [{secret: " + key32 + "}]}"), is: ErrInvalid,
			want: invalid + "resources[0].providers[0].aesgcm.keys[0].name: Required value: name is a mandatory field for a key"},
		{name: "key without secret", data: provider("aesgcm: {keys: [{name: k}]}"), is: ErrInvalid,
			want: invalid + "resources[0].providers[0].aesgcm.keys[0].secret: Required value: secret is a mandatory field for a key"},
		{name: "secret not base64", data: provider("secretbox: {keys: [{name: k, secret: 'hunter2!'}]}"), is: ErrInvalid,
			want: invalid + `resources[0].providers[0].secretbox.keys[0].secret: Invalid value: "REDACTED": secrets must be base64 encoded`},
		{name: "secret url-safe base64", data: provider("aesgcm: {keys: [{name: k, secret: 0JFarMtv4Qa4Hn-YQpuvZVAxOaWNa69W0qvkI0F5P_U=}]}"), is: ErrInvalid,
			want: invalid + `resources[0].providers[0].aesgcm.keys[0].secret: Invalid value: "REDACTED": secrets must be base64 encoded`},
		{name: "aesgcm 8 bytes", data: provider("aesgcm: {keys: [{name: k, secret: " + key8 + "}]}"), is: ErrInvalid,
			want: invalid + `resources[0].providers[0].aesgcm.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 8, expected one of [16 24 32]`},
		{name: "aesgcm 16 24 32", data: provider("aesgcm: {keys: [{name: a, secret: " + key16 + "}, {name: b, secret: " + key24 + "}, {name: c, secret: " + key32 + "}]}")},
		{name: "aescbc 20 bytes", data: provider("aescbc: {keys: [{name: k, secret: " + key20 + "}]}"), is: ErrInvalid,
			want: invalid + `resources[0].providers[0].aescbc.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 20, expected one of [16 24 32]`},
		{name: "aescbc 16 24 32", data: provider("aescbc: {keys: [{name: a, secret: " + key16 + "}, {name: b, secret: " + key24 + "}, {name: c, secret: " + key32 + "}]}")},
		{name: "secretbox 24 bytes", data: provider("secretbox: {keys: [{name: k, secret: " + key24 + "}]}"), is: ErrInvalid,
			want: invalid + `resources[0].providers[0].secretbox.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 24, expected one of [32]`},
		{name: "secretbox 32 bytes", data: provider("secretbox: {keys: [{name: k, secret: " + key32 + "}]}")},
		{name: "every key checked", data: provider("aesgcm: {keys: [{name: a, secret: " + key8 + "}, {}]}"), is: ErrInvalid,
			want: invalid + `[resources[0].providers[0].aesgcm.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 8, expected one of [16 24 32], ` +
				"resources[0].providers[0].aesgcm.keys[1].name: Required value: name is a mandatory field for a key, " +
				"resources[0].providers[0].aesgcm.keys[1].secret: Required value: secret is a mandatory field for a key]"},

		// KMS.
		{name: "kms v2", data: kms("apiVersion: v2, name: a, endpoint: 'unix:///a.sock'")},
		{name: "kms no name", data: kms("apiVersion: v2, endpoint: 'unix:///a.sock'"), is: ErrInvalid,
			want: invalid + "resources[0].providers[0].kms.name: Required value: name is a mandatory field for a provider"},
		{name: "kms name with colon", data: kms("apiVersion: v2, name: 'a:b', endpoint: 'unix:///a.sock'"), is: ErrInvalid,
			want: invalid + `resources[0].providers[0].kms.name: Invalid value: "a:b": invalid KMS provider name a:b, must not contain ':'`},
		{name: "kms v2 duplicate name", data: provider("kms: {apiVersion: v2, name: a, endpoint: 'unix:///a.sock'}\n  - kms: {apiVersion: v2, name: a, endpoint: 'unix:///b.sock'}"), is: ErrInvalid,
			want: invalid + `resources[0].providers[1].kms.name: Invalid value: "a": duplicate KMS provider name a, names must be unique`},
		{name: "kms v2 name used by v1", data: provider("kms: {apiVersion: v1, name: a, endpoint: 'unix:///a.sock'}\n  - kms: {apiVersion: v2, name: a, endpoint: 'unix:///b.sock'}"), is: ErrInvalid,
			want: invalid + "[resources[0].providers[0].kms.apiVersion: Invalid value: \"v1\": " + kmsV1Msg + ", " +
				`resources[0].providers[1].kms.name: Invalid value: "a": duplicate KMS provider name a, names must be unique]`},
		{name: "kms v1 duplicate name", data: provider("kms: {apiVersion: v1, name: a, endpoint: 'unix:///a.sock'}\n  - kms: {apiVersion: v1, name: a, endpoint: 'unix:///b.sock'}"), is: ErrInvalid,
			want: invalid + "[resources[0].providers[0].kms.apiVersion: Invalid value: \"v1\": " + kmsV1Msg + ", " +
				"resources[0].providers[1].kms.apiVersion: Invalid value: \"v1\": " + kmsV1Msg + "]"},
		{name: "kms v1 duplicate name on reload", reload: true, data: provider("kms: {apiVersion: v1, name: a, endpoint: 'unix:///a.sock'}\n  - kms: {apiVersion: v1, name: a, endpoint: 'unix:///b.sock'}"), is: ErrInvalid,
			want: invalid + "[resources[0].providers[0].kms.apiVersion: Invalid value: \"v1\": " + kmsV1Msg + ", " +
				`resources[0].providers[1].kms.name: Invalid value: "a": duplicate KMS provider name a, names must be unique, ` +
				"resources[0].providers[1].kms.apiVersion: Invalid value: \"v1\": " + kmsV1Msg + "]"},
		{name: "kms v1 name with colon", data: kms("apiVersion: v1, name: 'a:b', endpoint: 'unix:///a.sock'"), is: ErrInvalid,
			want: invalid + "resources[0].providers[0].kms.apiVersion: Invalid value: \"v1\": " + kmsV1Msg},
		{name: "kms zero timeout", data: kms("apiVersion: v2, name: a, endpoint: 'unix:///a.sock', timeout: 0s"), is: ErrInvalid,
			want: invalid + `resources[0].providers[0].kms.timeout: Invalid value: "0s": timeout should be a positive value`},
		{name: "kms negative timeout", data: kms("apiVersion: v2, name: a, endpoint: 'unix:///a.sock', timeout: -2s"), is: ErrInvalid,
			want: invalid + `resources[0].providers[0].kms.timeout: Invalid value: "-2s": timeout should be a positive value`},
		{name: "kms no endpoint", data: kms("apiVersion: v2, name: a"), is: ErrInvalid,
			want: invalid + `resources[0].providers[0].kms.endpoint: Invalid value: "": endpoint is a mandatory field for a kms`},
		{name: "kms endpoint not a URL", data: kms("apiVersion: v2, name: a, endpoint: 'unix://%zz'"), is: ErrInvalid,
			want: invalid + `resources[0].providers[0].kms.endpoint: Invalid value: "unix://%zz": invalid endpoint for kms provider, error: parse "unix://%zz": invalid URL escape "%zz"`},
		{name: "kms endpoint tcp", data: kms("apiVersion: v2, name: a, endpoint: 'tcp://127.0.0.1:80'"), is: ErrInvalid,
			want: invalid + `resources[0].providers[0].kms.endpoint: Invalid value: "tcp://127.0.0.1:80": unsupported scheme "tcp" for KMS provider, only unix is supported`},
		{name: "kms v2 cachesize", data: kms("apiVersion: v2, name: a, endpoint: 'unix:///a.sock', cachesize: 10"), is: ErrInvalid,
			want: invalid + "resources[0].providers[0].kms.cachesize: Invalid value: 10: cachesize is not supported in v2"},
		{name: "kms v1 cachesize zero", data: kms("apiVersion: v1, name: a, endpoint: 'unix:///a.sock', cachesize: 0"), is: ErrInvalid,
			want: invalid + "[resources[0].providers[0].kms.cachesize: Invalid value: 0: cachesize should be a positive value, or negative to disable, " +
				"resources[0].providers[0].kms.apiVersion: Invalid value: \"v1\": " + kmsV1Msg + "]"},
		{name: "kms unknown apiVersion", data: kms("apiVersion: v3, name: a, endpoint: 'unix:///a.sock'"), is: ErrInvalid,
			want: invalid + `resources[0].providers[0].kms.apiVersion: Invalid value: "v3": unsupported apiVersion apiVersion for KMS provider, only v1 and v2 are supported`},
		{name: "kms v1", data: kms("apiVersion: v1, name: a, endpoint: 'unix:///a.sock'"), is: ErrInvalid,
			want: invalid + `resources[0].providers[0].kms.apiVersion: Invalid value: "v1": KMSv1 is deprecated and will only receive security updates going forward. Use KMSv2 instead.  portcullis does not implement KMS v1.`},
		{name: "kms default apiVersion is v1", data: kms("name: a, endpoint: 'unix:///a.sock'"), is: ErrInvalid,
			want: invalid + `resources[0].providers[0].kms.apiVersion: Invalid value: "v1": KMSv1 is deprecated and will only receive security updates going forward. Use KMSv2 instead.  portcullis does not implement KMS v1.`},
		{name: "kms v2 reload", reload: true, data: kms("apiVersion: v2, name: a, endpoint: 'unix:///a.sock'")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse(tc.data, Options{Reload: tc.reload})
			if tc.want == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if c == nil || len(c.Resources) == 0 {
					t.Fatal("no configuration")
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted, want %q", tc.want)
			}
			if err.Error() != tc.want {
				t.Errorf("got  %q\nwant %q", err, tc.want)
			}
			if !errors.Is(err, tc.is) {
				t.Errorf("error is not %v", tc.is)
			}
		})
	}
}

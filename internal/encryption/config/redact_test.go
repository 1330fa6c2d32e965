package config

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// secretRE finds the value of each secret field in a file, tag and quotes
// aside. It is deliberately independent of secretValues.
var secretRE = regexp.MustCompile(`(?i)"?secret"?\s*:\s*(?:!!\w+\s+)?["']?([A-Za-z0-9+/=_!-]{8,})`)

// fileSecrets returns the secrets of a file: the values of its secret
// fields and the test keys written anywhere in it.
func fileSecrets(data []byte) []string {
	var out []string
	for _, m := range secretRE.FindAllSubmatch(data, -1) {
		out = append(out, string(m[1]))
	}
	for _, k := range []string{key8, key16, key20, key24, key32} {
		if bytes.Contains(data, []byte(k)) {
			out = append(out, k)
		}
	}
	return out
}

// leaks reports the first secret, or the 7-character prefix that the YAML
// parser quotes of a long scalar, that text contains.
func leaks(text string, secrets []string) string {
	for _, s := range secrets {
		if strings.Contains(text, s) || strings.Contains(text, s[:7]) {
			return s
		}
	}
	return ""
}

// TestNoSecretInErrors parses every test file and some inputs made to
// make the parsers quote a value, and checks that no error contains a key.
func TestNoSecretInErrors(t *testing.T) {
	inputs := map[string][]byte{
		"int tag":               provider("aesgcm: {keys: [{name: k, secret: !!int " + key32 + "}]}"),
		"float tag":             provider("aesgcm: {keys: [{name: k, secret: !!float " + key24 + "}]}"),
		"bool tag":              provider("aesgcm: {keys: [{name: k, secret: !!bool " + key16 + "}]}"),
		"binary tag":            provider("aesgcm: {keys: [{name: k, secret: !!binary " + key32[:20] + "}]}"),
		"duplicate key":         provider("aesgcm: {keys: [{name: k, secret: " + key32 + ", secret: " + key24 + "}]}"),
		"secret list":           provider("aesgcm: {keys: [{name: k, secret: [" + key32 + "]}]}"),
		"secret map":            provider("aesgcm: {keys: [{name: k, secret: {a: " + key32 + "}}]}"),
		"unknown beside":        provider("aesgcm: {keys: [{name: k, secret: " + key32 + ", other: 1}]}"),
		"bad base64":            provider("aesgcm: {keys: [{name: k, secret: " + key32[:30] + "}]}"),
		"wrong length":          provider("aesgcm: {keys: [{name: k, secret: " + key20 + "}]}"),
		"two providers":         provider("{aesgcm: {keys: [{name: k, secret: " + key32 + "}]}, secretbox: {keys: [{name: k, secret: " + key24 + "}]}}"),
		"empty provider beside": provider("{}\n  - aesgcm: {keys: [{name: k, secret: " + key8 + "}]}"),
		"quoted":                provider(`aesgcm: {keys: [{name: k, secret: "` + key20 + `"}]}`),
		"json":                  []byte(`{"apiVersion":"apiserver.config.k8s.io/v1","kind":"EncryptionConfiguration","resources":[{"resources":["secrets"],"providers":[{"aesgcm":{"keys":[{"name":"k","secret":"` + key20 + `"}]}, "identity": {}}]}]}`),
		"bad kind":              []byte("apiVersion: apiserver.config.k8s.io/v1\nkind: !!int " + key32 + "\n"),
	}
	for _, dir := range []string{"valid", "invalid"} {
		for _, f := range testFiles(t, dir) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			inputs[f] = data
		}
	}
	for name, data := range inputs {
		t.Run(name, func(t *testing.T) {
			secrets := fileSecrets(data)
			if len(secrets) == 0 && !strings.HasPrefix(name, "testdata") {
				t.Fatal("the test finds no secret in its input")
			}
			for _, reload := range []bool{false, true} {
				c, err := Parse(data, Options{Reload: reload})
				if err != nil {
					if s := leaks(err.Error(), secrets); s != "" {
						t.Errorf("error shows secret %s: %v", s, err)
					}
					continue
				}
				for _, format := range []string{"%v", "%+v", "%#v", "%s"} {
					if s := leaks(fmt.Sprintf(format, c), secrets); s != "" {
						t.Errorf("%s of Config shows secret %s", format, s)
					}
				}
			}
		})
	}
}

func TestScrub(t *testing.T) {
	data := provider("aesgcm: {keys: [{name: k, secret: " + key32 + "}]}\n  - secretbox: {keys: [{name: k, Secret: " + key24 + "}]}")
	for _, tc := range []struct{ in, want string }{
		{"cannot decode !!str `" + key32 + "` as a !!int", "cannot decode !!str `REDACTED` as a !!int"},
		{"cannot decode !!str `0JFarMt...` as a !!int", "cannot decode !!str `REDACTED` as a !!int"},
		{"two `a` and `b`", "two `REDACTED` and `REDACTED`"},
		{"unpaired ` quote", "unpaired ` quote"},
		{"value " + key32 + " and " + key24, "value REDACTED and REDACTED"},
		{"no secret here", "no secret here"},
	} {
		if got := scrub(tc.in, data); got != tc.want {
			t.Errorf("scrub(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// A file that does not parse leniently still has back quotes removed.
	if got := scrub("x `"+key32+"`", []byte("a: [")); got != "x `REDACTED`" {
		t.Errorf("got %q", got)
	}
}

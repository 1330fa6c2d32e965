package config

import (
	"sort"
	"strings"

	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"
	"sigs.k8s.io/yaml"
)

// redacted stands for key material in errors, as in kube-apiserver.
const redacted = "REDACTED"

// minSecretLen is the shortest text scrub replaces: a shorter value cannot
// be a base64 key (four characters encode at most three bytes), and
// replacing one- to three-letter strings would garble the message.
const minSecretLen = 4

// scrub removes key material from a parser's message: back-quoted text
// (how the YAML parser echoes a scalar) and every secret value that a
// lenient parse of data finds. A file too broken for the lenient parse
// gives the strict parser nothing to echo but the back-quoted scalar.
func scrub(msg string, data []byte) string {
	msg = redactBackQuoted(msg)
	for _, s := range secretValues(data) {
		msg = strings.ReplaceAll(msg, s, redacted)
	}
	return msg
}

// redactBackQuoted replaces the text between each pair of back quotes.
func redactBackQuoted(msg string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(msg, '`')
		if i < 0 {
			break
		}
		j := strings.IndexByte(msg[i+1:], '`')
		if j < 0 {
			break
		}
		b.WriteString(msg[:i+1])
		b.WriteString(redacted)
		b.WriteByte('`')
		msg = msg[i+1+j+1:]
	}
	b.WriteString(msg)
	return b.String()
}

// secretValues returns the string values under every "secret" key (in any
// case, at any depth) of data parsed leniently, longest first so that a
// secret containing another is replaced whole.
func secretValues(data []byte) []string {
	var doc any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil
	}
	var out []string
	var walk func(v any, underSecret bool)
	walk = func(v any, underSecret bool) {
		switch t := v.(type) {
		case map[string]any:
			for k, e := range t {
				walk(e, strings.EqualFold(k, "secret"))
			}
		case []any:
			for _, e := range t {
				walk(e, underSecret)
			}
		case string:
			if underSecret && len(t) >= minSecretLen {
				out = append(out, t)
			}
		}
	}
	walk(doc, false)
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// redactProvider returns a copy of p with every key secret replaced, for
// errors that print the whole provider.
func redactProvider(p apiserverv1.ProviderConfiguration) apiserverv1.ProviderConfiguration {
	p = *p.DeepCopy()
	keys := func(ks []apiserverv1.Key) {
		for i := range ks {
			if ks[i].Secret != "" {
				ks[i].Secret = redacted
			}
		}
	}
	if p.AESGCM != nil {
		keys(p.AESGCM.Keys)
	}
	if p.AESCBC != nil {
		keys(p.AESCBC.Keys)
	}
	if p.Secretbox != nil {
		keys(p.Secretbox.Keys)
	}
	return p
}

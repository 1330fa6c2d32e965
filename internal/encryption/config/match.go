package config

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"
)

// Match returns the index into Resources of the entry that governs gr, or
// -1 when none does (the resource is stored in clear text). As in
// kube-apiserver, an exact "resource.group" wins over "*.group" ("*." for
// the core group), which wins over "*.*"; with masking refused at load,
// that is the earliest entry that names gr. An entry whose first provider
// is identity still governs: it stores in clear text but reads with the
// entry's other providers.
func (c *Config) Match(gr schema.GroupResource) int {
	if all := c.MatchAll(gr); len(all) > 0 {
		return all[0]
	}
	return -1
}

// MatchAll returns the indexes of every entry whose providers read gr, in
// order; the first is Match's. Only an exact resource can be named by
// several entries: kube-apiserver then chains their providers, the
// first entry's first provider writing and all of them reading. The slice
// is shared: do not modify it.
func (c *Config) MatchAll(gr schema.GroupResource) []int {
	if c == nil {
		return nil
	}
	for _, rule := range []schema.GroupResource{gr, {Group: gr.Group, Resource: "*"}, anyGroupAnyResource} {
		if idx := c.rules[rule]; len(idx) > 0 {
			return idx
		}
	}
	return nil
}

// KMSProviders returns every KMS provider configuration in file order,
// each name once (the first occurrence), so that a caller can dial each
// plugin once.
func (c *Config) KMSProviders() []apiserverv1.KMSConfiguration {
	if c == nil {
		return nil
	}
	var out []apiserverv1.KMSConfiguration
	seen := map[string]bool{}
	for _, rc := range c.Resources {
		for _, p := range rc.Providers {
			if p.KMS == nil || seen[p.KMS.Name] {
				continue
			}
			seen[p.KMS.Name] = true
			out = append(out, *p.KMS.DeepCopy())
		}
	}
	return out
}

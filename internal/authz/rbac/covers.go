package rbac

import (
	"fmt"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
)

// covers reports whether the owner rules allow everything the servant rules
// allow. Each servant rule is split into atoms (one group, one resource, one
// verb, at most one name; or one URL and one verb); an atom is covered when
// a single owner rule covers it, and the atoms no owner rule covers are
// returned in the order they were split.
func covers(owner, servant []rbacv1.PolicyRule) (bool, []rbacv1.PolicyRule) {
	var missing []rbacv1.PolicyRule
	for i := range servant {
		for _, atom := range atoms(&servant[i]) {
			if !slices.ContainsFunc(owner, func(o rbacv1.PolicyRule) bool { return ruleCovers(&o, &atom) }) {
				missing = append(missing, atom)
			}
		}
	}
	return len(missing) == 0, missing
}

// atoms splits a rule into rules of one API group, resource and verb (and
// one name when it has names), then one URL and verb for each URL.
func atoms(r *rbacv1.PolicyRule) []rbacv1.PolicyRule {
	var out []rbacv1.PolicyRule
	for _, g := range r.APIGroups {
		for _, res := range r.Resources {
			for _, v := range r.Verbs {
				if len(r.ResourceNames) == 0 {
					out = append(out, rbacv1.PolicyRule{APIGroups: []string{g}, Resources: []string{res}, Verbs: []string{v}})
					continue
				}
				for _, n := range r.ResourceNames {
					out = append(out, rbacv1.PolicyRule{APIGroups: []string{g}, Resources: []string{res}, Verbs: []string{v}, ResourceNames: []string{n}})
				}
			}
		}
	}
	for _, u := range r.NonResourceURLs {
		for _, v := range r.Verbs {
			out = append(out, rbacv1.PolicyRule{NonResourceURLs: []string{u}, Verbs: []string{v}})
		}
	}
	return out
}

// ruleCovers reports whether owner covers the atom a. Resource atoms carry
// no URLs and URL atoms no groups or resources, so each side's check passes
// trivially for the other kind, as in kube-apiserver.
func ruleCovers(owner, a *rbacv1.PolicyRule) bool {
	if !has(owner.Verbs, rbacv1.VerbAll) && !containsAll(owner.Verbs, a.Verbs) {
		return false
	}
	if !has(owner.APIGroups, rbacv1.APIGroupAll) && !containsAll(owner.APIGroups, a.APIGroups) {
		return false
	}
	if !resourcesCover(owner.Resources, a.Resources) || !urlsCover(owner.NonResourceURLs, a.NonResourceURLs) {
		return false
	}
	// An owner restricted to names never covers an unrestricted atom.
	if len(owner.ResourceNames) == 0 {
		return true
	}
	return len(a.ResourceNames) > 0 && containsAll(owner.ResourceNames, a.ResourceNames)
}

func resourcesCover(owner, wanted []string) bool {
	if has(owner, rbacv1.ResourceAll) {
		return true
	}
	for _, w := range wanted {
		if has(owner, w) {
			continue
		}
		// "pods/log" is also covered by "*/log".
		_, sub, ok := strings.Cut(w, "/")
		if !ok || !has(owner, "*/"+sub) {
			return false
		}
	}
	return true
}

func urlsCover(owner, wanted []string) bool {
	for _, w := range wanted {
		if !slices.ContainsFunc(owner, func(o string) bool {
			return o == w || (strings.HasSuffix(o, "*") && strings.HasPrefix(w, strings.TrimRight(o, "*")))
		}) {
			return false
		}
	}
	return true
}

func containsAll(set, wanted []string) bool {
	for _, w := range wanted {
		if !has(set, w) {
			return false
		}
	}
	return true
}

// compactRules merges atoms that differ only in verb (one group, one
// resource, at most one name, nothing else) so that the escalation message
// lists {pods: get, list} rather than two lines. Other rules pass through.
func compactRules(rules []rbacv1.PolicyRule) []rbacv1.PolicyRule {
	type simple struct {
		group, resource string
		named           bool
		name            string
	}
	var out []rbacv1.PolicyRule
	merged := map[simple]int{} // index into out
	for _, r := range rules {
		if len(r.ResourceNames) > 1 || len(r.NonResourceURLs) > 0 || len(r.APIGroups) != 1 || len(r.Resources) != 1 {
			out = append(out, r)
			continue
		}
		k := simple{group: r.APIGroups[0], resource: r.Resources[0]}
		if len(r.ResourceNames) == 1 {
			k.named, k.name = true, r.ResourceNames[0]
		}
		if i, ok := merged[k]; ok {
			out[i].Verbs = append(out[i].Verbs, r.Verbs...)
			continue
		}
		merged[k] = len(out)
		out = append(out, *r.DeepCopy())
	}
	return out
}

// compactString is how kube-apiserver prints a rule in escalation errors:
// {APIGroups:[""], Resources:["pods"], Verbs:["get"]}, fields left out when
// empty.
func compactString(r *rbacv1.PolicyRule) string {
	var parts []string
	add := func(name string, values []string) {
		if len(values) > 0 {
			parts = append(parts, fmt.Sprintf("%s:%q", name, values))
		}
	}
	add("APIGroups", r.APIGroups)
	add("Resources", r.Resources)
	add("NonResourceURLs", r.NonResourceURLs)
	add("ResourceNames", r.ResourceNames)
	add("Verbs", r.Verbs)
	return "{" + strings.Join(parts, ", ") + "}"
}

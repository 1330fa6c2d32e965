package openapi

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// mediaRange is one clause of an Accept header.
type mediaRange struct {
	typ, sub string
	q        float64
}

// parseAccept returns the acceptable media ranges of an Accept header, most
// preferred first: by quality, then by specificity, then in header order.
// Malformed clauses are skipped; a missing header accepts anything.
func parseAccept(header string) []mediaRange {
	if strings.TrimSpace(header) == "" {
		return []mediaRange{{typ: "*", sub: "*", q: 1}}
	}
	var out []mediaRange
	for clause := range strings.SplitSeq(header, ",") {
		mt, params, _ := strings.Cut(clause, ";")
		mt = strings.ToLower(strings.TrimSpace(mt))
		if mt == "*" {
			mt = "*/*"
		}
		typ, sub, ok := strings.Cut(mt, "/")
		if !ok || typ == "" || sub == "" || (typ == "*" && sub != "*") {
			continue
		}
		m := mediaRange{typ: typ, sub: sub, q: 1}
		for p := range strings.SplitSeq(params, ";") {
			k, v, _ := strings.Cut(p, "=")
			if strings.TrimSpace(k) != "q" {
				continue
			}
			q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil || q < 0 || q > 1 {
				q = 0 // an invalid weight is no wish to receive it
			}
			m.q = q
		}
		if m.q > 0 {
			out = append(out, m)
		}
	}
	slices.SortStableFunc(out, func(a, b mediaRange) int {
		return cmp.Or(cmp.Compare(b.q, a.q), cmp.Compare(b.specificity(), a.specificity()))
	})
	return out
}

func (m mediaRange) specificity() int {
	switch {
	case m.typ == "*":
		return 0
	case m.sub == "*":
		return 1
	}
	return 2
}

// negotiate returns the index in offers ("type/subtype") of the media type
// to answer with, or -1 when the client accepts none of them.
func negotiate(header string, offers []string) int {
	for _, m := range parseAccept(header) {
		for i, offer := range offers {
			typ, sub, _ := strings.Cut(offer, "/")
			if (m.typ == "*" || m.typ == typ) && (m.sub == "*" || m.sub == sub) {
				return i
			}
		}
	}
	return -1
}

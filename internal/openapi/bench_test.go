package openapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// BenchmarkNew measures what start-up pays: the model, without rendering.
func BenchmarkNew(b *testing.B) {
	resources := servedResources()
	for b.Loop() {
		if _, err := New(clientgoscheme.Scheme, resources, testInfo); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRender measures what the first request pays: list types,
// the v2 document and every v3 document, in JSON. The structured-merge-diff
// schema is parsed once per process, so only the first iteration pays for
// it (-benchtime 1x shows that cost). It reports the sizes of the
// documents, plain and as kept (gzip-compressed).
func BenchmarkRender(b *testing.B) {
	resources := servedResources()
	var last *built
	for b.Loop() {
		d, err := New(clientgoscheme.Scheme, resources, testInfo)
		if err != nil {
			b.Fatal(err)
		}
		if last, err = d.build(); err != nil {
			b.Fatal(err)
		}
		if _, err := last.v2.get(); err != nil {
			b.Fatal(err)
		}
	}
	v3, v3gz := 0, 0
	for _, g := range last.gvs {
		v3 += len(mustPlain(g.json))
		v3gz += len(g.json.gz)
	}
	b.ReportMetric(float64(len(mustPlain(mustV2(last)))), "v2-bytes")
	b.ReportMetric(float64(len(mustV2(last).gz)), "v2-gzip-bytes")
	b.ReportMetric(float64(v3), "v3-bytes")
	b.ReportMetric(float64(v3gz), "v3-gzip-bytes")
	b.ReportMetric(float64(len(last.gvs)), "group-versions")
}

// BenchmarkV2Proto measures the conversion of the v2 document to
// protobuf, which the first client asking for it pays, and reports its size.
func BenchmarkV2Proto(b *testing.B) {
	d, err := New(clientgoscheme.Scheme, servedResources(), testInfo)
	if err != nil {
		b.Fatal(err)
	}
	built, err := d.build()
	if err != nil {
		b.Fatal(err)
	}
	js := mustPlain(mustV2(built))
	var pb []byte
	for b.Loop() {
		if pb, err = v2ToProto(js); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(pb)), "bytes")
}

// BenchmarkServe measures a request once the documents are built: what
// every kubectl invocation pays.
func BenchmarkServe(b *testing.B) {
	d, err := New(clientgoscheme.Scheme, servedResources(), testInfo)
	if err != nil {
		b.Fatal(err)
	}
	if err := d.Warm(); err != nil {
		b.Fatal(err)
	}
	for name, target := range map[string]string{"v3 index": "/openapi/v3", "v3 apps": "/openapi/v3/apis/apps/v1", "v2": "/openapi/v2"} {
		h := d.V3Handler()
		if name == "v2" {
			h = d.V2Handler()
		}
		b.Run(name, func(b *testing.B) {
			r := httptest.NewRequest(http.MethodGet, target, nil)
			r.Header.Set("Accept", "application/json")
			for b.Loop() {
				w := &discard{header: http.Header{}}
				h.ServeHTTP(w, r)
				if w.code != http.StatusOK {
					b.Fatal(w.code)
				}
			}
		})
	}
}

// discard is a ResponseWriter that keeps nothing of the body, as a network
// connection would not; httptest's recorder would measure its own copying.
type discard struct {
	header http.Header
	code   int
}

func (d *discard) Header() http.Header { return d.header }

func (d *discard) Write(p []byte) (int, error) {
	if d.code == 0 {
		d.code = http.StatusOK
	}
	return len(p), nil
}

func (d *discard) WriteHeader(code int) { d.code = code }

// hundredCustom returns 100 custom resources, each the sample CronTab
// (a schema of about 60 nodes, with status and scale) in a group of its own.
func hundredCustom(b *testing.B) []CustomResource {
	sample := customResources(b, structuralForm, "crontab.yaml")[0]
	crs := make([]CustomResource, 100)
	for i := range crs {
		cr := sample
		gv := schema.GroupVersion{Group: fmt.Sprintf("g%d.example.com", i), Version: "v1"}
		cr.GVK, cr.ListGVK = gv.WithKind(sample.GVK.Kind), gv.WithKind(sample.ListGVK.Kind)
		crs[i] = cr
	}
	return crs
}

// freshSchemas counts the schemas fresh makes.
var freshSchemas int

// fresh gives every custom resource a schema SetCustom has not seen (its
// description differs), so that it renders them all again.
func fresh(crs []CustomResource) []CustomResource {
	out := slices.Clone(crs)
	for i := range out {
		s := *out[i].Schema
		freshSchemas++
		s.Description = fmt.Sprintf("CronTab number %d.", freshSchemas)
		out[i].Schema = &s
	}
	return out
}

// BenchmarkSetCustom100 measures publishing 100 custom resources on top
// of the built-in ones, whose serialized form every build reuses:
//
//   - set: SetCustom of 100 resources it has not seen (each rendered);
//   - set+v3: that, and the build the next request makes (100 v3
//     documents and the index);
//   - set+v3+v2: that, and the v2 document;
//   - one-changed: the common case, one of the 100 replaced (SetCustom
//     keeps the 99 others' renderings and documents), rebuilt without and
//     with v2 (which only v2 clients make it build).
func BenchmarkSetCustom100(b *testing.B) {
	d, err := New(clientgoscheme.Scheme, servedResources(), testInfo)
	if err != nil {
		b.Fatal(err)
	}
	if err := d.Warm(); err != nil {
		b.Fatal(err)
	}
	crs := hundredCustom(b)
	run := func(b *testing.B, next func() []CustomResource, v3, v2 bool) {
		for b.Loop() {
			if err := d.SetCustom(next()); err != nil {
				b.Fatal(err)
			}
			if !v3 {
				continue
			}
			built, err := d.build()
			if err != nil {
				b.Fatal(err)
			}
			if v2 {
				if _, err := built.v2.get(); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	b.Run("set", func(b *testing.B) { run(b, func() []CustomResource { return fresh(crs) }, false, false) })
	b.Run("set+v3", func(b *testing.B) { run(b, func() []CustomResource { return fresh(crs) }, true, false) })
	b.Run("set+v3+v2", func(b *testing.B) { run(b, func() []CustomResource { return fresh(crs) }, true, true) })
	oneChanged := func(v2 bool) func(b *testing.B) {
		return func(b *testing.B) {
			crs := slices.Clone(crs)
			run(b, func() []CustomResource {
				crs[0] = fresh(crs[:1])[0]
				return crs
			}, true, v2)
		}
	}
	// The schemas handed over afresh, unchanged (internal/crd/schema's
	// Version.OpenAPI returns a new copy on every call): compared, not
	// rendered again.
	b.Run("unchanged-copies", func(b *testing.B) {
		copies := make([][]CustomResource, 0, 2)
		for range 2 {
			c := slices.Clone(crs)
			for i := range c {
				var s spec.Schema
				js, err := json.Marshal(c[i].Schema)
				if err != nil {
					b.Fatal(err)
				}
				if err := json.Unmarshal(js, &s); err != nil {
					b.Fatal(err)
				}
				c[i].Schema = &s
			}
			copies = append(copies, c)
		}
		n := 0
		run(b, func() []CustomResource { n++; return copies[n%2] }, true, false)
	})
	b.Run("one-changed+v3", oneChanged(false))
	b.Run("one-changed+v3+v2", oneChanged(true))
}

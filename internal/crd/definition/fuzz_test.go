package definition

import (
	"encoding/json"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// FuzzValidateCreate decodes arbitrary JSON into a definition and runs it
// through what a create and an update do to it: nothing may panic, and
// the defaulted definition must validate the same twice.
func FuzzValidateCreate(f *testing.F) {
	seed, err := json.Marshal(widgets())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"metadata":{"name":"a.b.c"},"spec":{"group":"b.c","names":{"plural":"a","kind":"A"},"scope":"Cluster","versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-validations":[{"rule":"self.x.all(y, y > 0)","messageExpression":"'bad'"}],"properties":{"x":{"type":"array","items":{"type":"integer","default":1}}}}}}]}}`))
	f.Add([]byte(`{"spec":{"versions":[{"name":"v1","storage":true,"schema":{"openAPIV3Schema":{"anyOf":[{"not":{"allOf":[{"items":{"type":"string"}}]}}],"x-kubernetes-int-or-string":true,"x-kubernetes-embedded-resource":true}}}],"conversion":{"strategy":"Webhook","webhook":{"clientConfig":{"url":"https://a/b","caBundle":"eA=="}}}}}`))
	f.Add([]byte(`{"spec":{"versions":[{"name":"v1","storage":true,"selectableFields":[{"jsonPath":".spec.x"}],"additionalPrinterColumns":[{"name":"a","type":"date","jsonPath":".x"}],"subresources":{"scale":{"specReplicasPath":".spec.r","statusReplicasPath":".status.r"}}}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := &crd{}
		if err := json.Unmarshal(data, c); err != nil {
			return
		}
		Default(c)
		PrepareForCreate(c)
		first := ValidateCreate(c)
		if second := ValidateCreate(c); len(first) != len(second) {
			t.Fatalf("validation is not stable: %d then %d errors", len(first), len(second))
		}
		_ = WarningsOnCreate(c)
		next := c.DeepCopy()
		next.ResourceVersion = "2"
		PrepareForUpdate(next, c)
		_ = ValidateUpdate(next, c)
		_ = ValidateStatusUpdate(next, c)
		_ = WarningsOnUpdate(next, c)
		_ = NextStatus(c, []*crd{next}, t0)
		for _, e := range first {
			if e.Type == field.ErrorTypeInternal && e.Field == "" {
				// A default or example that is not JSON cannot come
				// from a JSON body.
				t.Fatalf("internal error for a decoded definition: %v", e)
			}
		}
	})
}

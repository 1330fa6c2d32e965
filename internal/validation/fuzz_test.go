package validation

import (
	"encoding/json"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/portcullis/portcullis/internal/defaults"
	"github.com/portcullis/portcullis/internal/registry"
)

// servedKinds makes a fresh object of every stored built-in type, as the
// registry lists them, so that a new resource is fuzzed without a line here.
var servedKinds = func() []func() runtime.Object {
	var kinds []func() runtime.Object
	for _, r := range registry.Builtin() {
		if !r.Virtual {
			kinds = append(kinds, r.New)
		}
	}
	return kinds
}()

// FuzzValidate decodes arbitrary JSON into each served type and runs
// defaulting, create and update validation: none may panic.
func FuzzValidate(f *testing.F) {
	seeds := []string{
		`{}`,
		`{"metadata":{"name":"x","namespace":"ns","resourceVersion":"1"}}`,
		`{"metadata":{"name":"x"},"webhooks":[{"name":"a.b.c","clientConfig":{"url":"https://h/p?q#f","service":{"path":"//"}},"rules":[{"operations":["*"],"resources":["*/*","x/*","*/y"]}],"matchConditions":[{"name":""}]}]}`,
		`{"metadata":{"name":"x"},"spec":{"matchConstraints":{"resourceRules":[{"resourceNames":["a","a"],"operations":["DELETE"]}]},"paramKind":{"apiVersion":"/"},"validations":[{"expression":" ","message":"\n"}],"auditAnnotations":[{"key":""}],"mutations":[{"patchType":"JSONPatch","applyConfiguration":{}}],"variables":[{"name":"in"}]}}`,
		`{"metadata":{"name":"x","namespace":"ns"},"spec":{"containers":[{"name":"a","ports":[{"containerPort":80}],"resources":{"limits":{"cpu":"1"},"requests":{"cpu":"2","example.com/gpu":"1"}},"env":[{"name":"x","valueFrom":{}}]}],"volumes":[{"name":"v"}]}}`,
		`{"metadata":{"name":"x","namespace":"ns"},"spec":{"selector":{"matchExpressions":[{"key":"a","operator":"Bogus"}]},"template":{"spec":{}},"strategy":{"type":"X","rollingUpdate":{"maxSurge":"500%"}},"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":0}}}}`,
		`{"metadata":{"name":"x"},"roleRef":{"kind":"Role"},"subjects":[{"kind":"User"},{"kind":"ServiceAccount"}],"rules":[{"nonResourceURLs":["/x"],"apiGroups":[""]}]}`,
		`{"metadata":{"name":"x"},"spec":{"request":"eA==","usages":["any","any"],"signerName":"a/b/c","expirationSeconds":1}}`,
		`{"metadata":{"name":"x","namespace":"ns"},"eventTime":"2024-01-01T00:00:00.000000Z","series":{"count":1},"type":"Info"}`,
		`{"metadata":{"name":"x","namespace":"ns"},"type":"kubernetes.io/tls","data":{"a b":"eA=="},"stringData":{"k":"v"},"immutable":true}`,
	}
	for i, s := range seeds {
		for k := range servedKinds {
			if (k+i)%3 == 0 {
				f.Add(uint8(k), []byte(s))
			}
		}
	}
	f.Fuzz(func(t *testing.T, kind uint8, data []byte) {
		newObj := servedKinds[int(kind)%len(servedKinds)]
		obj := newObj()
		if err := json.Unmarshal(data, obj); err != nil {
			return
		}
		_ = Create(obj)
		defaults.Apply(obj)
		_ = Create(obj)
		old := obj.DeepCopyObject()
		_ = Update(obj, old)
		_ = Update(obj, newObj())
		_ = Update(newObj(), obj)
		_ = StatusUpdate(obj, old)
		_ = StatusUpdate(newObj(), obj)
	})
}

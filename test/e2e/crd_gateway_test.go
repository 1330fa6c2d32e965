package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/portcullis/portcullis/test/e2e/harness"
)

// gatewayAPI is the Gateway API release whose CRDs and examples the test
// installs: CRDs nobody here wrote, with large schemas, CEL rules and a
// ValidatingAdmissionPolicy of their own.
const gatewayAPI = "v1.6.3"

// TestGatewayAPI installs the standard channel of the Gateway API and
// applies every one of its examples with kubectl, as a cluster operator
// would. The golden output is what kube-apiserver v1.37.2 printed for the
// same commands.
func TestGatewayAPI(t *testing.T) {
	t.Parallel()
	dir := harness.ModuleDir(t, "sigs.k8s.io/gateway-api", gatewayAPI)
	s := harness.Start(t)

	step(t, "install the standard channel", func(t *testing.T) {
		out := s.MustKubectl(t, "apply", "--server-side", "-f", filepath.Join(dir, "config/crd/standard"))
		if n := strings.Count(out, "serverside-applied"); n != 12 {
			t.Errorf("kubectl apply applied %d objects, want 10 CRDs and a policy with its binding:\n%s", n, out)
		}
		s.MustKubectl(t, "wait", "--for", "condition=established", "--timeout=60s", "crd", "--all")
	})

	step(t, "apply every example", func(t *testing.T) {
		var files []string
		err := filepath.WalkDir(filepath.Join(dir, "examples/standard"), func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".yaml") {
				files = append(files, path)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		sort.Strings(files)
		var got strings.Builder
		for _, f := range files {
			rel, _ := filepath.Rel(dir, f)
			got.WriteString("== " + rel + "\n")
			out, errOut, _ := s.Kubectl(t, "apply", "-f", f)
			got.WriteString(out + errOut)
		}
		want, err := os.ReadFile("testdata/crd/gateway-api-examples.golden")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), got.String()); diff != "" {
			t.Errorf("kubectl apply of the examples (-kube-apiserver +portcullis):\n%s", diff)
		}
	})

	step(t, "the schemas' rules", func(t *testing.T) {
		tests := []struct {
			name, manifest string
			want           []string // kube-apiserver's lines, in any order
		}{{
			name: "duplicate listeners",
			manifest: `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: bad-listeners, namespace: default}
spec:
  gatewayClassName: example
  listeners:
  - {name: web, protocol: HTTP, port: 80}
  - {name: web, protocol: HTTPS, port: 443}
`,
			want: []string{
				`The Gateway "bad-listeners" is invalid: `,
				`* spec.listeners[1]: Duplicate value: {"name":"web"}`,
				`* spec.listeners: Invalid value: Listener name must be unique within the Gateway`,
			},
		}, {
			name: "hostnames ports and paths",
			manifest: `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: bad-route, namespace: default}
spec:
  hostnames: ["-bad-.example.com", "UPPER.example.com"]
  parentRefs: [{name: prod-web}]
  rules:
  - matches: [{path: {type: PathPrefix, value: no-slash}}]
    backendRefs: [{name: foo-svc, port: 99999}]
`,
			want: []string{
				`The HTTPRoute "bad-route" is invalid: `,
				`* spec.hostnames[0]: Invalid value: "-bad-.example.com": spec.hostnames[0] in body should match '^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$'`,
				`* spec.hostnames[1]: Invalid value: "UPPER.example.com": spec.hostnames[1] in body should match '^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$'`,
				`* spec.rules[0].backendRefs[0].port: Invalid value: 99999: spec.rules[0].backendRefs[0].port in body should be less than or equal to 65535`,
				`* spec.rules[0].matches[0].path: Invalid value: value must be an absolute path and start with '/' when type one of ['Exact', 'PathPrefix']`,
			},
		}, {
			name: "filters",
			manifest: `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: bad-filter, namespace: default}
spec:
  parentRefs: [{name: prod-web}]
  rules:
  - filters:
    - {type: RequestRedirect, requestRedirect: {scheme: https}}
    - {type: URLRewrite, urlRewrite: {hostname: example.com}}
    backendRefs: [{name: foo-svc, port: 8080}]
`,
			want: []string{
				`The HTTPRoute "bad-filter" is invalid: `,
				`* spec.rules[0]: Invalid value: RequestRedirect filter must not be used together with backendRefs`,
				`* spec.rules[0].filters: Invalid value: May specify either httpRouteFilterRequestRedirect or httpRouteFilterRequestRewrite, but not both`,
			},
		}, {
			name: "unknown field",
			manifest: `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: bad-class}
spec: {controllerName: example.com/gateway, unknownField: 3}
`,
			want: []string{`Error from server (BadRequest): error when creating "` + "%FILE%" + `": GatewayClass in version "v1" cannot be handled as a GatewayClass: strict decoding error: unknown field "spec.unknownField"`},
		}}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				f := writeFile(t, "object.yaml", tt.manifest)
				_, errOut, err := s.Kubectl(t, "create", "-f", f)
				if err == nil {
					t.Fatal("an invalid object was accepted")
				}
				got := lines(errOut)
				want := slices.Clone(tt.want)
				for i := range want {
					want[i] = strings.TrimSpace(strings.ReplaceAll(want[i], "%FILE%", f))
				}
				sort.Strings(got)
				sort.Strings(want)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("kubectl create (-kube-apiserver +portcullis):\n%s", diff)
				}
			})
		}
	})

	step(t, "the bundled policy refuses experimental CRDs over standard ones", func(t *testing.T) {
		_, errOut, err := s.Kubectl(t, "apply", "--server-side", "--force-conflicts", "-f", filepath.Join(dir, "config/crd/experimental/gateway.networking.k8s.io_httproutes.yaml"))
		want := `The customresourcedefinitions "httproutes.gateway.networking.k8s.io" is invalid: : ValidatingAdmissionPolicy 'safe-upgrades.gateway.networking.k8s.io' with binding 'safe-upgrades.gateway.networking.k8s.io' denied request: Installing experimental CRDs on top of standard channel CRDs is prohibited by default. Uninstall ValidatingAdmissionPolicy safe-upgrades.gateway.networking.k8s.io to install experimental CRDs on top of standard channel CRDs.`
		if err == nil || strings.TrimSpace(errOut) != want {
			t.Errorf("kubectl apply of the experimental CRD: err %v, said\n%s\nwant\n%s", err, errOut, want)
		}
	})
}

package e2e

import (
	"bufio"
	"errors"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/portcullis/portcullis/test/e2e/harness"
)

// served lists every resource issue 2 says portcullis serves, as kubectl
// names them (resource.group), and whether it is namespaced.
var served = []struct {
	name       string
	namespaced bool
}{
	{"namespaces", false},
	{"pods", true},
	{"nodes", false},
	{"services", true},
	{"endpoints", true},
	{"configmaps", true},
	{"secrets", true},
	{"serviceaccounts", true},
	{"persistentvolumes", false},
	{"persistentvolumeclaims", true},
	{"events", true},
	{"limitranges", true},
	{"resourcequotas", true},
	{"deployments.apps", true},
	{"replicasets.apps", true},
	{"statefulsets.apps", true},
	{"daemonsets.apps", true},
	{"clusterroles.rbac.authorization.k8s.io", false},
	{"clusterrolebindings.rbac.authorization.k8s.io", false},
	{"roles.rbac.authorization.k8s.io", true},
	{"rolebindings.rbac.authorization.k8s.io", true},
	{"validatingadmissionpolicies.admissionregistration.k8s.io", false},
	{"validatingadmissionpolicybindings.admissionregistration.k8s.io", false},
	{"mutatingadmissionpolicies.admissionregistration.k8s.io", false},
	{"mutatingadmissionpolicybindings.admissionregistration.k8s.io", false},
	{"validatingwebhookconfigurations.admissionregistration.k8s.io", false},
	{"mutatingwebhookconfigurations.admissionregistration.k8s.io", false},
	{"leases.coordination.k8s.io", true},
	{"csidrivers.storage.k8s.io", false},
	{"csinodes.storage.k8s.io", false},
	{"volumeattachments.storage.k8s.io", false},
	{"storageclasses.storage.k8s.io", false},
	{"certificatesigningrequests.certificates.k8s.io", false},
	{"events.events.k8s.io", true},
}

// manifestObject is one document of a manifest file.
type manifestObject struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
}

// kubectlName is how kubectl prints the object with -o name: kind.group/name.
func (o manifestObject) kubectlName() string {
	gv, _ := schema.ParseGroupVersion(o.APIVersion)
	kind := strings.ToLower(o.Kind)
	if gv.Group != "" {
		kind += "." + gv.Group
	}
	return kind + "/" + o.Metadata.Name
}

// readManifest reads every document of a multi-document YAML file.
func readManifest(t *testing.T, path string) []manifestObject {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := utilyaml.NewYAMLReader(bufio.NewReader(f))
	var objs []manifestObject
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return objs
		}
		if err != nil {
			t.Fatalf("reading %s: %v", path, err)
		}
		var o manifestObject
		if err := yaml.Unmarshal(doc, &o); err != nil {
			t.Fatalf("decoding %s: %v", path, err)
		}
		if o.Kind != "" {
			objs = append(objs, o)
		}
	}
}

func TestKubectlEveryKind(t *testing.T) {
	t.Parallel()
	s := harness.Start(t)
	objs := readManifest(t, "testdata/every-kind.yaml")

	step(t, "api-resources lists every served resource", func(t *testing.T) {
		for _, namespaced := range []bool{true, false} {
			flag := "--namespaced=" + map[bool]string{true: "true", false: "false"}[namespaced]
			got := lines(s.MustKubectl(t, "api-resources", flag, "-o", "name"))
			for _, r := range served {
				if r.namespaced == namespaced && !slices.Contains(got, r.name) {
					t.Errorf("kubectl api-resources %s lacks %s", flag, r.name)
				}
			}
		}
	})

	step(t, "apply one object of every kind", func(t *testing.T) {
		out := s.MustKubectl(t, "apply", "-f", "testdata/every-kind.yaml")
		var want []string
		for _, o := range objs {
			want = append(want, o.kubectlName()+" created")
		}
		if got := lines(out); !slices.Equal(got, want) {
			t.Errorf("kubectl apply printed\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})

	t.Run("get every kind", func(t *testing.T) {
		var resources []string
		for _, r := range served {
			resources = append(resources, r.name)
		}
		got := lines(s.MustKubectl(t, "get", strings.Join(resources, ","), "-A", "-o", "name"))
		for _, o := range objs {
			if !slices.Contains(got, o.kubectlName()) {
				t.Errorf("kubectl get lacks %s", o.kubectlName())
			}
		}
	})

	t.Run("short names", func(t *testing.T) {
		got := lines(s.MustKubectl(t, "get", "po,svc,ep,cm,sa,pvc,ev,limits,quota,deploy,rs,sts,ds", "-n", "every", "-o", "name"))
		got = append(got, lines(s.MustKubectl(t, "get", "ns,no,pv,sc,csr", "-o", "name"))...)
		for _, want := range []string{"pod/pod-a", "service/svc-a", "endpoints/svc-a", "configmap/cm-a", "serviceaccount/sa-a",
			"persistentvolumeclaim/pvc-a", "event/event-a", "limitrange/limits-a", "resourcequota/quota-a", "deployment.apps/deploy-a",
			"replicaset.apps/rs-a", "statefulset.apps/sts-a", "daemonset.apps/ds-a", "namespace/every", "node/node-a",
			"persistentvolume/pv-a", "storageclass.storage.k8s.io/standard", "certificatesigningrequest.certificates.k8s.io/csr-a"} {
			if !slices.Contains(got, want) {
				t.Errorf("get by short names lacks %s", want)
			}
		}
	})

	t.Run("the all category", func(t *testing.T) {
		got := lines(s.MustKubectl(t, "get", "all", "-n", "every", "-o", "name"))
		want := []string{"pod/pod-a", "service/svc-a", "deployment.apps/deploy-a", "replicaset.apps/rs-a", "statefulset.apps/sts-a", "daemonset.apps/ds-a"}
		if !sameSet(got, want) {
			t.Errorf("kubectl get all = %q, want %q", got, want)
		}
	})

	t.Run("tables", func(t *testing.T) {
		tests := []struct {
			args   []string
			header []string
			row    []string // leading cells of the fixture's row; AGE is skipped as "*"
		}{
			{[]string{"pods", "-n", "every"}, []string{"NAME", "READY", "STATUS", "RESTARTS", "AGE"}, []string{"pod-a", "0/1", "Pending", "0"}},
			{[]string{"nodes"}, []string{"NAME", "STATUS", "ROLES", "AGE", "VERSION"}, []string{"node-a", "Unknown", "<none>"}},
			{[]string{"namespaces"}, []string{"NAME", "STATUS", "AGE"}, []string{"every", "Active"}},
			{[]string{"configmaps", "-n", "every"}, []string{"NAME", "DATA", "AGE"}, []string{"cm-a", "1"}},
			{[]string{"secrets", "-n", "every"}, []string{"NAME", "TYPE", "DATA", "AGE"}, []string{"secret-a", "Opaque", "1"}},
			{[]string{"deployments", "-n", "every", "-o", "wide"},
				[]string{"NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"},
				[]string{"deploy-a", "0/1", "0", "0", "*", "main", "registry.k8s.io/pause:3.10", "app=a"}},
			{[]string{"validatingadmissionpolicies"}, []string{"NAME", "VALIDATIONS", "PARAMKIND", "AGE"}, []string{"max-replicas", "1", "<unset>"}},
			{[]string{"validatingadmissionpolicybindings"}, []string{"NAME", "POLICYNAME", "PARAMREF", "AGE"}, []string{"max-replicas", "max-replicas", "<unset>"}},
			{[]string{"mutatingadmissionpolicies"}, []string{"NAME", "MUTATIONS", "PARAMKIND", "AGE"}, []string{"add-label", "1", "<unset>"}},
			{[]string{"mutatingadmissionpolicybindings"}, []string{"NAME", "POLICYNAME", "PARAMREF", "AGE"}, []string{"add-label", "add-label", "<unset>"}},
			{[]string{"validatingwebhookconfigurations"}, []string{"NAME", "WEBHOOKS", "AGE"}, []string{"vwc-a", "1"}},
			{[]string{"mutatingwebhookconfigurations"}, []string{"NAME", "WEBHOOKS", "AGE"}, []string{"mwc-a", "1"}},
		}
		for _, tt := range tests {
			t.Run(tt.args[0], func(t *testing.T) {
				header, rows := table(t, s.MustKubectl(t, append([]string{"get"}, tt.args...)...))
				if !slices.Equal(header, tt.header) {
					t.Errorf("header = %q, want %q", header, tt.header)
				}
				r := row(t, rows, tt.row[0])
				if len(r) < len(tt.row) {
					t.Fatalf("row = %q, want it to start with %q", r, tt.row)
				}
				for i, want := range tt.row {
					if want != "*" && r[i] != want {
						t.Errorf("row = %q, want it to start with %q", r, tt.row)
						break
					}
				}
			})
		}
	})

	t.Run("explain", func(t *testing.T) {
		tests := []struct {
			field string
			want  []string // each must be a line of the output, compared without extra spaces
		}{
			{"pods.spec", []string{"KIND: Pod", "VERSION: v1", "FIELD: spec <PodSpec>", "FIELDS:", "containers <[]Container> -required-", "nodeName <string>"}},
			{"deployments.spec.replicas", []string{"GROUP: apps", "KIND: Deployment", "VERSION: v1", "FIELD: replicas <integer>"}},
			{"validatingadmissionpolicies.spec.validations", []string{"GROUP: admissionregistration.k8s.io", "KIND: ValidatingAdmissionPolicy", "expression <string> -required-"}},
		}
		for _, tt := range tests {
			t.Run(tt.field, func(t *testing.T) {
				out := s.MustKubectl(t, "explain", tt.field)
				var got []string
				for _, l := range lines(out) {
					got = append(got, strings.Join(strings.Fields(l), " "))
				}
				for _, want := range tt.want {
					if !slices.Contains(got, want) {
						t.Errorf("kubectl explain %s lacks the line %q:\n%s", tt.field, want, out)
					}
				}
			})
		}
	})
}

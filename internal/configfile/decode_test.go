package configfile

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// testConfig stands for a component's published configuration type.
type testConfig struct {
	metav1.TypeMeta `json:",inline"`
	Name            string      `json:"name,omitempty"`
	Count           *int32      `json:"count,omitempty"`
	Items           []testItem  `json:"items,omitempty"`
	Extra           *testNested `json:"extra,omitempty"`
}

type testItem struct {
	Name  string   `json:"name"`
	Hosts []string `json:"hosts,omitempty"`
}

type testNested struct {
	Flag bool `json:"flag,omitempty"`
}

var testType = Type{
	Kind:     "TestConfiguration",
	Versions: []string{"test.config.k8s.io/v1", "test.config.k8s.io/v1beta1"},
	Legacy:   []metav1.TypeMeta{{APIVersion: "v1", Kind: "TestConfig"}},
}

func TestDecode(t *testing.T) {
	const head = "apiVersion: test.config.k8s.io/v1\nkind: TestConfiguration\n"
	count := int32(3)
	tests := []struct {
		name string
		typ  Type
		data string
		want testConfig
		// err is the whole error text, "" for success.
		err string
		is  error
	}{
		{name: "yaml", data: head + "name: a\ncount: 3\nitems:\n- name: i\n  hosts: [h]\nextra: {flag: true}\n",
			want: testConfig{TypeMeta: metav1.TypeMeta{APIVersion: "test.config.k8s.io/v1", Kind: "TestConfiguration"},
				Name: "a", Count: &count, Items: []testItem{{Name: "i", Hosts: []string{"h"}}}, Extra: &testNested{Flag: true}}},
		{name: "json", data: `{"apiVersion":"test.config.k8s.io/v1","kind":"TestConfiguration","name":"a","count":3}`,
			want: testConfig{TypeMeta: metav1.TypeMeta{APIVersion: "test.config.k8s.io/v1", Kind: "TestConfiguration"}, Name: "a", Count: &count}},
		{name: "yaml flow mapping that is not json", data: "{apiVersion: test.config.k8s.io/v1, kind: TestConfiguration, name: a}",
			want: testConfig{TypeMeta: metav1.TypeMeta{APIVersion: "test.config.k8s.io/v1", Kind: "TestConfiguration"}, Name: "a"}},
		{name: "second version", data: "apiVersion: test.config.k8s.io/v1beta1\nkind: TestConfiguration\n",
			want: testConfig{TypeMeta: metav1.TypeMeta{APIVersion: "test.config.k8s.io/v1beta1", Kind: "TestConfiguration"}}},
		{name: "legacy form", data: "apiVersion: v1\nkind: TestConfig\nname: old\n",
			want: testConfig{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "TestConfig"}, Name: "old"}},

		{name: "empty", data: "", is: ErrEmpty, err: "configuration file is empty"},
		{name: "white space", data: " \n\t\r\n", is: ErrEmpty, err: "configuration file is empty"},
		{name: "only a comment", data: "# nothing\n", err: "apiVersion is missing"},
		{name: "json null", data: "null", err: "apiVersion is missing"},
		{name: "syntax", data: head + "items: [\n", err: "yaml: line 3: did not find expected node content"},
		{name: "not an object", data: "- a\n- b\n", err: "json: cannot unmarshal array into Go value of type v1.TypeMeta"},
		{name: "apiVersion not a string", data: "apiVersion: 1\nkind: TestConfiguration\n",
			err: "json: cannot unmarshal number into Go struct field TypeMeta.apiVersion of type string"},

		{name: "no apiVersion", data: "kind: TestConfiguration\n", err: "apiVersion is missing"},
		{name: "other apiVersion", data: "apiVersion: test.config.k8s.io/v2\nkind: TestConfiguration\n",
			err: `unsupported apiVersion "test.config.k8s.io/v2", want one of test.config.k8s.io/v1, test.config.k8s.io/v1beta1`},
		{name: "other apiVersion, one accepted", typ: Type{Kind: "TestConfiguration", Versions: []string{"test.config.k8s.io/v1"}},
			data: "apiVersion: test.config.k8s.io/v1beta1\nkind: TestConfiguration\n",
			err:  `unsupported apiVersion "test.config.k8s.io/v1beta1", want test.config.k8s.io/v1`},
		{name: "apiVersion in the wrong case", data: "apiVersion: Test.config.k8s.io/v1\nkind: TestConfiguration\n",
			err: `unsupported apiVersion "Test.config.k8s.io/v1", want one of test.config.k8s.io/v1, test.config.k8s.io/v1beta1`},
		{name: "apiVersion key in the wrong case", data: "apiversion: test.config.k8s.io/v1\nkind: TestConfiguration\n",
			err: "apiVersion is missing"},
		{name: "no kind", data: "apiVersion: test.config.k8s.io/v1\n", err: "kind is missing"},
		{name: "other kind", data: "apiVersion: test.config.k8s.io/v1\nkind: OtherConfiguration\n",
			err: `expected kind TestConfiguration, got "OtherConfiguration"`},
		{name: "legacy kind in a current version", data: "apiVersion: test.config.k8s.io/v1\nkind: TestConfig\n",
			err: `expected kind TestConfiguration, got "TestConfig"`},
		{name: "current kind in the legacy version", data: "apiVersion: v1\nkind: TestConfiguration\n",
			err: `unsupported apiVersion "v1", want one of test.config.k8s.io/v1, test.config.k8s.io/v1beta1`},
		{name: "type is checked before fields", data: "apiVersion: test.config.k8s.io/v1\nkind: OtherConfiguration\nbogus: 1\n",
			err: `expected kind TestConfiguration, got "OtherConfiguration"`},

		{name: "unknown fields", data: head + "bogus: 1\nitems:\n- name: i\n  port: 1\n",
			err: `strict decoding error: unknown field "bogus", unknown field "items[0].port"`},
		{name: "field in the wrong case", data: head + "Name: a\n", err: `strict decoding error: unknown field "Name"`},
		{name: "duplicate yaml key", data: head + "name: a\nname: b\n",
			err: "yaml: unmarshal errors:\n  line 4: key \"name\" already set in map"},
		{name: "duplicate json key", data: `{"apiVersion":"test.config.k8s.io/v1","kind":"TestConfiguration","items":[{"name":"a","name":"b"}]}`,
			err: `strict decoding error: duplicate field "items[0].name"`},
		{name: "wrong type", data: head + "count: many\n",
			err: "json: cannot unmarshal string into Go struct field testConfig.count of type int32"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			typ := tt.typ
			if typ.Kind == "" {
				typ = testType
			}
			var got testConfig
			err := typ.Decode([]byte(tt.data), &got)
			if tt.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
				return
			}
			if err == nil || err.Error() != tt.err {
				t.Fatalf("err = %v, want %q", err, tt.err)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("err = %v, not %v", err, tt.is)
			}
		})
	}
}

func TestDecodeTypeError(t *testing.T) {
	var got testConfig
	err := testType.Decode([]byte("apiVersion: test.config.k8s.io/v1\nkind: Other\n"), &got)
	var te *TypeError
	if !errors.As(err, &te) || te.APIVersion != "test.config.k8s.io/v1" || te.Kind != "Other" || te.Want.Kind != testType.Kind {
		t.Fatalf("err = %#v", err)
	}
}

// FuzzDecode: any content decodes or fails without a panic; what decodes
// declares an accepted type and decodes to the same value again from its
// JSON encoding.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		"apiVersion: test.config.k8s.io/v1\nkind: TestConfiguration\nname: a\ncount: 3\nitems:\n- name: i\n  hosts: [h]\nextra: {flag: true}\n",
		`{"apiVersion":"test.config.k8s.io/v1beta1","kind":"TestConfiguration","items":[{"name":"a","name":"b"}]}`,
		"apiVersion: v1\nkind: TestConfig\n",
		"apiVersion: test.config.k8s.io/v1\nkind: TestConfiguration\nitems: &a [*a]\n",
		"apiVersion: test.config.k8s.io/v1\nkind: TestConfiguration\nName: a\nname: b\nname: c\n",
		"- [\n", "null", " ", "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var got testConfig
		if err := testType.Decode(data, &got); err != nil {
			return
		}
		if testType.check(got.TypeMeta) != nil {
			t.Fatalf("accepted type %+v", got.TypeMeta)
		}
		js, err := json.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		var again testConfig
		if err := testType.Decode(js, &again); err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		// omitempty drops an empty list.
		if diff := cmp.Diff(got, again, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("(-first +again):\n%s", diff)
		}
	})
}

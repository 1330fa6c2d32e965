package definition

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

func webhookConversion(cc apiextensionsv1.WebhookClientConfig, reviewVersions ...string) *apiextensionsv1.CustomResourceConversion {
	return &apiextensionsv1.CustomResourceConversion{
		Strategy: apiextensionsv1.WebhookConverter,
		Webhook:  &apiextensionsv1.WebhookConversion{ClientConfig: &cc, ConversionReviewVersions: reviewVersions},
	}
}

// TestValidateCreate runs each definition through Default,
// PrepareForCreate and ValidateCreate, as a create request does. The
// texts are kube-apiserver's: the checks are its library's, and the
// paths come from the same conversion to the internal type (a schema
// that every version shares is reported under spec.validation).
func TestValidateCreate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(c *crd)
		// want nil means: compare with testdata/TestValidateCreate/<name>.txt.
		want []string
	}{
		{name: "valid", mutate: func(*crd) {}, want: []string{}},
		{name: "name is not plural.group", mutate: func(c *crd) { c.Name = "gadgets.example.com" },
			want: []string{`metadata.name: Invalid value: "gadgets.example.com": must be spec.names.plural+"."+spec.group`}},
		{name: "uppercase plural", mutate: func(c *crd) { c.Spec.Names.Plural = "Widgets"; c.Name = "Widgets.example.com" }},
		{name: "group without a dot", mutate: func(c *crd) { c.Spec.Group = "example"; c.Name = "widgets.example" },
			want: []string{`spec.group: Invalid value: "example": should be a domain with at least one dot`}},
		{name: "kind equals listKind", mutate: func(c *crd) { c.Spec.Names.ListKind = "Widget" },
			want: []string{`spec.names.listKind: Invalid value: "Widget": kind and listKind may not be the same`}},
		{name: "bad short name and category", mutate: func(c *crd) {
			c.Spec.Names.ShortNames = []string{"w_d"}
			c.Spec.Names.Categories = []string{"All"}
		}},
		{name: "unknown scope", mutate: func(c *crd) { c.Spec.Scope = "Global" },
			want: []string{`spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"`}},
		{name: "no storage version", mutate: func(c *crd) { c.Spec.Versions[0].Storage = false }},
		{name: "two storage versions", mutate: func(c *crd) {
			v := c.Spec.Versions[0]
			v.Name = "v2"
			c.Spec.Versions = append(c.Spec.Versions, v)
		}},
		{name: "duplicate version", mutate: func(c *crd) {
			v := c.Spec.Versions[0]
			v.Storage = false
			c.Spec.Versions = append(c.Spec.Versions, v)
		}},
		{name: "version name", mutate: func(c *crd) { c.Spec.Versions[0].Name = "V1" }},
		{name: "no schema", mutate: func(c *crd) { c.Spec.Versions[0].Schema = nil },
			want: []string{`spec.versions[0].schema.openAPIV3Schema: Required value`}},
		{name: "non-structural schema", mutate: func(c *crd) {
			c.Spec.Versions[0].Schema = schema(props{
				"untyped": {},
				"choice":  {Type: "object", AnyOf: []apiextensionsv1.JSONSchemaProps{{Type: "string"}}},
			})
		}, want: []string{
			`spec.validation.openAPIV3Schema.properties[spec].properties[choice].anyOf[0].type: Forbidden: must be empty to be structural`,
			`spec.validation.openAPIV3Schema.properties[spec].properties[untyped].type: Required value: must not be empty for specified object fields`,
		}},
		{name: "per-version schema keeps its path", mutate: func(c *crd) {
			c.Spec.Versions[0].Schema = schema(props{"untyped": {}})
			c.Spec.Versions = append(c.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{Name: "v2", Served: true, Schema: schema(nil)})
		}, want: []string{
			`spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[untyped].type: Required value: must not be empty for specified object fields`,
		}},
		{name: "default of the wrong type", mutate: func(c *crd) {
			c.Spec.Versions[0].Schema = schema(props{"size": {Type: "integer", Default: &apiextensionsv1.JSON{Raw: []byte(`"big"`)}}})
		}, want: []string{
			`spec.validation.openAPIV3Schema.properties[spec].properties[size].default: Invalid value: "string":  in body must be of type integer: "string"`,
		}},
		{name: "CEL rule that does not compile", mutate: func(c *crd) {
			c.Spec.Versions[0].Schema = schema(nil)
			s := c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
			s.XValidations = apiextensionsv1.ValidationRules{{Rule: "self.size =="}}
			c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = s
		}},
		{name: "CEL rule over an unbounded list", mutate: func(c *crd) {
			c.Spec.Versions[0].Schema = schema(props{"tags": {
				Type:         "array",
				Items:        &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"}},
				XValidations: apiextensionsv1.ValidationRules{{Rule: "self.all(x, self.all(y, self.all(z, x == y && y == z)))"}},
			}})
		}},
		{name: "CEL rule over a long list", mutate: func(c *crd) {
			c.Spec.Versions[0].Schema = schema(props{"tags": tags(4000, "self.all(x, self.all(y, x == y))")})
		}},
		{name: "CEL message expression", mutate: func(c *crd) {
			c.Spec.Versions[0].Schema = schema(props{"size": {
				Type:         "integer",
				XValidations: apiextensionsv1.ValidationRules{{Rule: "self > 0", MessageExpression: "self + 1", Reason: ptr.To(apiextensionsv1.FieldValueErrorReason("Teapot"))}},
			}})
		}},
		{name: "printer column", mutate: func(c *crd) {
			c.Spec.Versions[0].AdditionalPrinterColumns = []apiextensionsv1.CustomResourceColumnDefinition{{Name: "Size", Type: "float", JSONPath: "spec.size"}}
		}, want: []string{
			`spec.additionalPrinterColumns[0].type: Invalid value: "float": must be one of boolean,date,integer,number,string`,
			`spec.additionalPrinterColumns[0].JSONPath: Invalid value: "spec.size": must be a simple json path starting with .`,
		}},
		{name: "preserveUnknownFields", mutate: func(c *crd) { c.Spec.PreserveUnknownFields = true }, want: []string{
			`spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead`,
		}},
		{name: "webhook conversion without a client", mutate: func(c *crd) {
			c.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter}
		}, want: []string{
			`spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook`,
			`spec.conversion.conversionReviewVersions: Required value`,
		}},
		{name: "webhook conversion over http", mutate: func(c *crd) {
			c.Spec.Conversion = webhookConversion(apiextensionsv1.WebhookClientConfig{URL: ptr.To("http://convert.example.com/widgets")}, "v3")
		}, want: []string{
			`spec.conversion.webhookClientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
			`spec.conversion.conversionReviewVersions: Invalid value: ["v3"]: must include at least one of v1, v1beta1`,
		}},
		// kube-apiserver hands the service's name and namespace to the
		// webhook checks in swapped order: a missing namespace is
		// reported as a missing name.
		{name: "webhook conversion to a service without namespace", mutate: func(c *crd) {
			c.Spec.Conversion = webhookConversion(apiextensionsv1.WebhookClientConfig{Service: &apiextensionsv1.ServiceReference{Name: "conv", Path: ptr.To("convert")}}, "v1", "v1")
		}, want: []string{
			`spec.conversion.webhookClientConfig.service.name: Required value`,
			`spec.conversion.webhookClientConfig.service.path: Invalid value: "convert": must start with a '/'`,
			`spec.conversion.conversionReviewVersions[1]: Invalid value: "v1": duplicate version`,
		}},
		{name: "webhook conversion with both url and service", mutate: func(c *crd) {
			c.Spec.Conversion = webhookConversion(apiextensionsv1.WebhookClientConfig{
				URL: ptr.To("https://convert.example.com"), Service: &apiextensionsv1.ServiceReference{Namespace: "ns", Name: "conv"},
			}, "v1")
		}, want: []string{`spec.conversion.webhookClientConfig: Required value: exactly one of url or service is required`}},
		{name: "invalid caBundle is accepted on create", mutate: func(c *crd) {
			c.Spec.Conversion = webhookConversion(apiextensionsv1.WebhookClientConfig{URL: ptr.To("https://convert.example.com"), CABundle: []byte("junk")}, "v1")
		}, want: []string{}},
		{name: "None conversion with a webhook", mutate: func(c *crd) {
			c.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.NoneConverter, Webhook: &apiextensionsv1.WebhookConversion{
				ClientConfig: &apiextensionsv1.WebhookClientConfig{URL: ptr.To("https://convert.example.com")}, ConversionReviewVersions: []string{"v1"},
			}}
		}, want: []string{
			`spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook`,
			`spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook`,
		}},
		{name: "protected group without approval", mutate: func(c *crd) { c.Spec.Group = "widgets.k8s.io"; c.Name = "widgets.widgets.k8s.io" }, want: []string{
			`metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111`,
		}},
		{name: "protected group with a bad approval", mutate: func(c *crd) {
			c.Spec.Group, c.Name = "widgets.kubernetes.io", "widgets.widgets.kubernetes.io"
			c.Annotations = map[string]string{apiextensionsv1.KubeAPIApprovedAnnotation: "yes"}
		}, want: []string{
			`metadata.annotations[api-approved.kubernetes.io]: Invalid value: "yes": protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`,
		}},
		{name: "protected group approved", mutate: func(c *crd) {
			c.Spec.Group, c.Name = "widgets.k8s.io", "widgets.widgets.k8s.io"
			c.Annotations = map[string]string{apiextensionsv1.KubeAPIApprovedAnnotation: "https://github.com/kubernetes/enhancements/pull/1111"}
		}, want: []string{}},
		{name: "deprecation warning of a current version", mutate: func(c *crd) { c.Spec.Versions[0].DeprecationWarning = ptr.To("old") }, want: []string{
			`spec.versions[0].deprecationWarning: Invalid value: "old": can only be set for deprecated versions`,
		}},
		{name: "status subresource without status in the schema is fine", mutate: func(c *crd) {
			c.Spec.Versions[0].Subresources = &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}}
		}, want: []string{}},
		{name: "scale subresource paths", mutate: func(c *crd) {
			c.Spec.Versions[0].Subresources = &apiextensionsv1.CustomResourceSubresources{Scale: &apiextensionsv1.CustomResourceSubresourceScale{
				SpecReplicasPath: "spec.replicas", StatusReplicasPath: ".status.replicas",
			}}
		}},
		{name: "empty", mutate: func(c *crd) { *c = crd{} }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := widgets()
			tc.mutate(c)
			Default(c)
			PrepareForCreate(c)
			before := c.DeepCopy()
			checkErrors(t, ValidateCreate(c), tc.want)
			if diff := cmp.Diff(before, c); diff != "" {
				t.Errorf("ValidateCreate changed its argument (-before +after):\n%s", diff)
			}
		})
	}
}

// TestValidateUpdate replaces the stored definition (two versions,
// both stored) through the main resource, after PrepareForUpdate.
func TestValidateUpdate(t *testing.T) {
	tests := []struct {
		name   string
		old    func() *crd
		mutate func(c *crd)
		want   []string
	}{
		{name: "unchanged", old: stored, mutate: func(*crd) {}, want: []string{}},
		{name: "group is immutable", old: stored, mutate: func(c *crd) { c.Spec.Group = "example.org" },
			want: []string{`spec.group: Invalid value: "example.org": field is immutable`}},
		{name: "plural is immutable", old: stored, mutate: func(c *crd) { c.Spec.Names.Plural = "gadgets" },
			want: []string{`spec.names.plural: Invalid value: "gadgets": field is immutable`}},
		{name: "kind and scope change before establishing", old: stored,
			mutate: func(c *crd) {
				c.Spec.Names.Kind, c.Spec.Names.ListKind, c.Spec.Scope = "Gadget", "GadgetList", apiextensionsv1.ClusterScoped
			},
			want: []string{}},
		{name: "kind and scope are immutable once established", old: func() *crd { return established(stored()) },
			mutate: func(c *crd) {
				c.Spec.Names.Kind, c.Spec.Names.ListKind, c.Spec.Scope = "Gadget", "GadgetList", apiextensionsv1.ClusterScoped
			},
			want: []string{
				`spec.scope: Invalid value: "Cluster": field is immutable`,
				`spec.names.kind: Invalid value: "Gadget": field is immutable`,
			}},
		{name: "short names may change once established", old: func() *crd { return established(stored()) },
			mutate: func(c *crd) { c.Spec.Names.ShortNames = []string{"wg"} }, want: []string{}},
		{name: "metadata.name is immutable", old: stored, mutate: func(c *crd) { c.Name = "gadgets.example.com" },
			want: []string{`metadata.name: Invalid value: "gadgets.example.com": field is immutable`}},
		{name: "a stored version may not go", old: stored, mutate: func(c *crd) { c.Spec.Versions = c.Spec.Versions[1:] }, want: []string{
			`status.storedVersions[0]: Invalid value: "v1beta1": missing from spec.versions; v1beta1 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v1beta1 and removes v1beta1 from status.storedVersions`,
		}},
		{name: "a stored version may stop being served", old: stored, mutate: func(c *crd) { c.Spec.Versions[0].Served = false }, want: []string{}},
		{name: "moving the storage version", old: stored, mutate: func(c *crd) {
			c.Spec.Versions[0].Storage, c.Spec.Versions[1].Storage = true, false
		}, want: []string{}},
		{name: "invalid caBundle on an established definition", old: func() *crd { return established(stored()) }, mutate: func(c *crd) {
			c.Spec.Conversion = webhookConversion(apiextensionsv1.WebhookClientConfig{URL: ptr.To("https://convert.example.com"), CABundle: []byte("junk")}, "v1")
		}, want: []string{
			`spec.conversion.webhookClientConfig.caBundle: Invalid value: "anVuaw==": unable to load root certificates: unable to parse bytes as PEM block`,
		}},
		{name: "invalid caBundle stays invalid", old: func() *crd {
			c := established(stored())
			c.Spec.Conversion = webhookConversion(apiextensionsv1.WebhookClientConfig{URL: ptr.To("https://convert.example.com"), CABundle: []byte("junk")}, "v1")
			return c
		}, mutate: func(c *crd) { c.Spec.Conversion.Webhook.ClientConfig.CABundle = []byte("other junk") }, want: []string{}},
		{name: "preserveUnknownFields may not be set", old: stored, mutate: func(c *crd) { c.Spec.PreserveUnknownFields = true }, want: []string{
			`spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead`,
		}},
		{name: "a missing approval stays missing", old: func() *crd {
			c := stored()
			c.Spec.Group, c.Name = "widgets.k8s.io", "widgets.widgets.k8s.io"
			return c
		}, mutate: func(c *crd) { c.Spec.Names.ShortNames = nil }, want: []string{}},
		{name: "an approval may not become invalid", old: func() *crd {
			c := stored()
			c.Spec.Group, c.Name = "widgets.k8s.io", "widgets.widgets.k8s.io"
			c.Annotations = map[string]string{apiextensionsv1.KubeAPIApprovedAnnotation: "unapproved, experimental"}
			return c
		}, mutate: func(c *crd) { c.Annotations[apiextensionsv1.KubeAPIApprovedAnnotation] = "maybe" }, want: []string{
			`metadata.annotations[api-approved.kubernetes.io]: Invalid value: "maybe": protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`,
		}},
		{name: "an expensive rule already stored is kept", old: expensive, mutate: func(c *crd) { c.Spec.Names.ShortNames = nil }, want: []string{}},
		{name: "an expensive rule of an unchanged version is kept", old: expensive, mutate: func(c *crd) {
			c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["extra"] = apiextensionsv1.JSONSchemaProps{Type: "string"}
		}, want: []string{}},
		{name: "an expensive rule is refused once its schema changes", old: expensive, mutate: func(c *crd) {
			s := c.Spec.Versions[1].Schema.OpenAPIV3Schema.Properties["spec"]
			s.Properties["extra"] = apiextensionsv1.JSONSchemaProps{Type: "string"}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			old := tc.old()
			c := old.DeepCopy()
			tc.mutate(c)
			Default(c)
			PrepareForUpdate(c, old)
			checkErrors(t, ValidateUpdate(c, old), tc.want)
		})
	}
}

// tags is a list of at most maxItems short strings with one rule.
func tags(maxItems int64, rule string) apiextensionsv1.JSONSchemaProps {
	return apiextensionsv1.JSONSchemaProps{
		Type:         "array",
		MaxItems:     ptr.To(maxItems),
		Items:        &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "string", MaxLength: ptr.To(int64(8))}},
		XValidations: apiextensionsv1.ValidationRules{{Rule: rule}},
	}
}

// expensive is stored with a rule whose estimated cost exceeds the
// per-rule limit (8.1 times) but not the whole schema's, as if written by
// an older server whose estimates were lower. kube-apiserver keeps such a
// rule while its version's schema is unchanged.
func expensive() *crd {
	c := stored()
	s := c.Spec.Versions[1].Schema.OpenAPIV3Schema.Properties["spec"]
	s.Properties["tags"] = tags(3000, "self.all(x, self.all(y, x == y))")
	c.Spec.Versions[1].Schema.OpenAPIV3Schema.Properties["spec"] = s
	return c
}

func TestValidateStatusUpdate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(c *crd)
		want   []string
	}{
		{name: "accepted names", mutate: func(c *crd) { c.Status.AcceptedNames = c.Spec.Names }, want: []string{}},
		{name: "bad accepted names", mutate: func(c *crd) {
			c.Status.AcceptedNames = apiextensionsv1.CustomResourceDefinitionNames{Plural: "Widgets", Kind: "Widget", ListKind: "Widget"}
		}, want: []string{
			`status.acceptedNames.plural: Invalid value: "Widgets": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
			`status.acceptedNames.listKind: Invalid value: "Widget": kind and listKind may not be the same`,
		}},
		{name: "storage migration empties storedVersions", mutate: func(c *crd) { c.Status.StoredVersions = nil }, want: []string{}},
		{name: "metadata rules apply", mutate: func(c *crd) { c.ResourceVersion = "" }, want: []string{
			`metadata.resourceVersion: Invalid value: "": must be specified for an update`,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			old := stored()
			c := old.DeepCopy()
			tc.mutate(c)
			checkErrors(t, ValidateStatusUpdate(c, old), tc.want)
		})
	}
}

func TestNilAndUnconvertible(t *testing.T) {
	bad := widgets()
	bad.Spec.Versions[0].Schema = schema(props{"size": {Type: "integer", Default: &apiextensionsv1.JSON{Raw: []byte(`{`)}}})
	tests := []struct {
		name string
		errs field.ErrorList
	}{
		{name: "nil create", errs: ValidateCreate(nil)},
		{name: "nil update", errs: ValidateUpdate(widgets(), nil)},
		{name: "nil status update", errs: ValidateStatusUpdate(nil, widgets())},
		{name: "unconvertible", errs: ValidateCreate(bad)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if len(tc.errs) != 1 || tc.errs[0].Type != field.ErrorTypeInternal {
				t.Errorf("got %v, want one internal error", tc.errs)
			}
		})
	}
}

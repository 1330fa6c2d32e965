package rest

import (
	"bytes"
	"fmt"
	"mime"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
)

// Media types the server reads and writes.
const (
	mediaJSON     = "application/json"
	mediaYAML     = "application/yaml"
	mediaProtobuf = "application/vnd.kubernetes.protobuf"

	mediaJSONPatch  = "application/json-patch+json"
	mediaMergePatch = "application/merge-patch+json"
	mediaSMPatch    = "application/strategic-merge-patch+json"
	mediaApplyYAML  = "application/apply-patch+yaml"
	mediaApplyCBOR  = "application/apply-patch+cbor"
)

// codecs holds the serializers, built once.
type codecs struct {
	scheme      *runtime.Scheme
	json        *json.Serializer
	jsonPretty  *json.Serializer
	yaml        *json.Serializer
	proto       *protobuf.Serializer
	jsonStrict  *json.Serializer
	yamlStrict  *json.Serializer
	protoStream *protobuf.RawSerializer
	params      runtime.ParameterCodec
}

func newCodecs(s *runtime.Scheme) *codecs {
	opts := func(yaml, pretty, strict bool) *json.Serializer {
		return json.NewSerializerWithOptions(json.DefaultMetaFactory, s, s, json.SerializerOptions{Yaml: yaml, Pretty: pretty, Strict: strict})
	}
	return &codecs{
		scheme:      s,
		json:        opts(false, false, false),
		jsonPretty:  opts(false, true, false),
		yaml:        opts(true, false, false),
		proto:       protobuf.NewSerializer(s, s),
		jsonStrict:  opts(false, false, true),
		yamlStrict:  opts(true, false, true),
		protoStream: protobuf.NewRawSerializer(s, s),
		params:      runtime.NewParameterCodec(s),
	}
}

// mediaType is one entry of an Accept or Content-Type header.
type mediaType struct {
	typ    string
	params map[string]string
}

func (m mediaType) as() string { return m.params["as"] }

// parseAccept splits an Accept header into media types in the order given.
// Quality values are not honoured beyond order, as clients of the Kubernetes
// API list their preference first.
func parseAccept(h string) []mediaType {
	if strings.TrimSpace(h) == "" {
		return []mediaType{{typ: mediaJSON}}
	}
	var out []mediaType
	for _, part := range strings.Split(h, ",") {
		typ, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		out = append(out, mediaType{typ: typ, params: params})
	}
	return out
}

// encoderFor returns the serializer writing typ, or nil if unsupported.
func (c *codecs) encoderFor(typ string, pretty bool) (runtime.Encoder, string) {
	switch typ {
	case mediaJSON, "*/*", "application/*", "":
		if pretty {
			return c.jsonPretty, mediaJSON
		}
		return c.json, mediaJSON
	case mediaYAML:
		return c.yaml, mediaYAML
	case mediaProtobuf:
		return c.proto, mediaProtobuf
	}
	return nil, ""
}

// decoderFor returns the body decoder for a Content-Type, strict or not.
func (c *codecs) decoderFor(contentType string, strict bool) (runtime.Decoder, error) {
	typ := mediaJSON
	if contentType != "" {
		t, _, err := mime.ParseMediaType(contentType)
		if err != nil {
			return nil, fmt.Errorf("invalid Content-Type %q: %w", contentType, err)
		}
		typ = t
	}
	switch typ {
	case mediaJSON:
		if strict {
			return c.jsonStrict, nil
		}
		return c.json, nil
	case mediaYAML:
		if strict {
			return c.yamlStrict, nil
		}
		return c.yaml, nil
	case mediaProtobuf:
		return c.proto, nil
	}
	return nil, errUnsupportedMediaType
}

// encode serializes obj with its kind set, as the API returns it.
func (c *codecs) encode(enc runtime.Encoder, obj runtime.Object) ([]byte, error) {
	if err := c.setKind(obj); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := enc.Encode(obj, &buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// setKind fills in apiVersion and kind from the scheme.
func (c *codecs) setKind(obj runtime.Object) error {
	if !obj.GetObjectKind().GroupVersionKind().Empty() {
		return nil
	}
	gvks, _, err := c.scheme.ObjectKinds(obj)
	if err != nil {
		return err
	}
	gvk := gvks[0]
	// Status and the other meta types are registered in every group; the API
	// always reports them as meta.k8s.io/v1 (Table) or v1 (Status).
	switch obj.(type) {
	case *metav1.Status, *metav1.WatchEvent, *metav1.APIVersions, *metav1.APIGroupList, *metav1.APIGroup, *metav1.APIResourceList:
		gvk = schema.GroupVersionKind{Version: "v1", Kind: gvk.Kind}
	}
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	return nil
}

package objects

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	apiextensionsinstall "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	"github.com/portcullis/portcullis/internal/registry"
)

// protobufMagic starts every value in Kubernetes' protobuf encoding.
var protobufMagic = []byte("k8s\x00")

// decodeStored decodes a stored value into an object of res's kind. Values
// portcullis writes are protobuf in that kind's version; kube-apiserver,
// sharing an etcd, also writes JSON (its APIService and
// CustomResourceDefinition servers) and other versions than the served
// one (CustomResourceDefinitions as v1beta1): those are decoded and
// converted, off the common path.
func (o *Objects) decodeStored(res *registry.Resource, value []byte) (runtime.Object, error) {
	into := res.New()
	if bytes.HasPrefix(value, protobufMagic) {
		out, _, err := o.proto.Decode(value, nil, into)
		if err == nil && out == into {
			return into, nil
		}
	}
	return decodeForeign(value, into)
}

// foreign decodes what kube-apiserver stores: every version it may store,
// with the internal types of the groups whose versions convert through
// them.
var foreign = sync.OnceValues(func() (*foreignCodec, error) {
	s, err := registry.NewScheme()
	if err != nil {
		return nil, err
	}
	apiextensionsinstall.Install(s)
	return &foreignCodec{scheme: s, decoder: serializer.NewCodecFactory(s).UniversalDeserializer()}, nil
})

type foreignCodec struct {
	scheme  *runtime.Scheme
	decoder runtime.Decoder
}

// decodeForeign decodes value, in any media type and version the scheme
// knows, into into's kind.
func decodeForeign(value []byte, into runtime.Object) (runtime.Object, error) {
	f, err := foreign()
	if err != nil {
		return nil, err
	}
	out, gvk, err := f.decoder.Decode(value, nil, nil)
	if err != nil {
		return nil, err
	}
	kinds, _, err := f.scheme.ObjectKinds(into)
	if err != nil {
		return nil, err
	}
	want := kinds[0]
	if *gvk == want {
		return out, nil
	}
	if gvk.GroupKind() != want.GroupKind() {
		return nil, fmt.Errorf("stored %s, want %s", gvk, want)
	}
	if internalGV := (schema.GroupVersion{Group: gvk.Group, Version: runtime.APIVersionInternal}); f.scheme.Recognizes(internalGV.WithKind(gvk.Kind)) {
		internal, err := f.scheme.ConvertToVersion(out, internalGV)
		if err != nil {
			return nil, fmt.Errorf("converting stored %s: %w", gvk, err)
		}
		if err := f.scheme.Convert(internal, into, nil); err != nil {
			return nil, fmt.Errorf("converting stored %s to %s: %w", gvk, want.Version, err)
		}
		return into, nil
	}
	// Versions of one kind that differ only in name (ClusterTrustBundle
	// v1beta1 and v1) convert field by field.
	data, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, into); err != nil {
		return nil, fmt.Errorf("converting stored %s to %s: %w", gvk, want.Version, err)
	}
	return into, nil
}

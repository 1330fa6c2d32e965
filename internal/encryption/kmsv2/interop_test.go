package kmsv2

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

// encryptedObjectDescriptor is kube-apiserver's api.proto EncryptedObject,
// rebuilt from its field list so that the protobuf library can check our
// hand-written codec.
func encryptedObjectDescriptor(t *testing.T) protoreflect.MessageDescriptor {
	t.Helper()
	s := proto.String
	i := proto.Int32
	opt := descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum()
	rep := descriptorpb.FieldDescriptorProto_LABEL_REPEATED.Enum()
	bytesT := descriptorpb.FieldDescriptorProto_TYPE_BYTES.Enum()
	stringT := descriptorpb.FieldDescriptorProto_TYPE_STRING.Enum()
	fdp := &descriptorpb.FileDescriptorProto{
		Name:    s("kmsv2test.proto"),
		Package: s("v2"),
		Syntax:  s("proto3"),
		EnumType: []*descriptorpb.EnumDescriptorProto{{
			Name: s("EncryptedDEKSourceType"),
			Value: []*descriptorpb.EnumValueDescriptorProto{
				{Name: s("AES_GCM_KEY"), Number: i(0)},
				{Name: s("HKDF_SHA256_XNONCE_AES_GCM_SEED"), Number: i(1)},
			},
		}},
		MessageType: []*descriptorpb.DescriptorProto{{
			Name: s("EncryptedObject"),
			Field: []*descriptorpb.FieldDescriptorProto{
				{Name: s("encryptedData"), Number: i(1), Label: opt, Type: bytesT, JsonName: s("encryptedData")},
				{Name: s("keyID"), Number: i(2), Label: opt, Type: stringT, JsonName: s("keyID")},
				{Name: s("encryptedDEKSource"), Number: i(3), Label: opt, Type: bytesT, JsonName: s("encryptedDEKSource")},
				{Name: s("annotations"), Number: i(4), Label: rep, Type: descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum(), TypeName: s(".v2.EncryptedObject.AnnotationsEntry"), JsonName: s("annotations")},
				{Name: s("encryptedDEKSourceType"), Number: i(5), Label: opt, Type: descriptorpb.FieldDescriptorProto_TYPE_ENUM.Enum(), TypeName: s(".v2.EncryptedDEKSourceType"), JsonName: s("encryptedDEKSourceType")},
			},
			NestedType: []*descriptorpb.DescriptorProto{{
				Name:    s("AnnotationsEntry"),
				Options: &descriptorpb.MessageOptions{MapEntry: proto.Bool(true)},
				Field: []*descriptorpb.FieldDescriptorProto{
					{Name: s("key"), Number: i(1), Label: opt, Type: stringT, JsonName: s("key")},
					{Name: s("value"), Number: i(2), Label: opt, Type: bytesT, JsonName: s("value")},
				},
			}},
		}},
	}
	fd, err := protodesc.NewFile(fdp, nil)
	if err != nil {
		t.Fatal(err)
	}
	return fd.Messages().ByName("EncryptedObject")
}

func randomObject(r *rand.Rand) *encryptedObject {
	b := func(n int) []byte {
		out := make([]byte, n)
		for i := range out {
			out[i] = byte(r.IntN(256))
		}
		return out
	}
	o := &encryptedObject{
		data:       b(1 + r.IntN(300)),
		keyID:      fmt.Sprintf("key-%d", r.IntN(1000)),
		dekSource:  b(1 + r.IntN(200)),
		sourceType: sourceType(r.IntN(2)),
	}
	for range r.IntN(4) {
		if o.annotations == nil {
			o.annotations = map[string][]byte{}
		}
		o.annotations[fmt.Sprintf("a%d.example.com", r.IntN(100))] = b(r.IntN(20))
	}
	return o
}

func TestCodecMatchesProtobuf(t *testing.T) {
	md := encryptedObjectDescriptor(t)
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 200 {
		o := randomObject(r)
		ours := encodeObject(o)

		// protobuf reads what we write ...
		msg := dynamicpb.NewMessage(md)
		if err := proto.Unmarshal(ours, msg); err != nil {
			t.Fatalf("#%d: protobuf cannot read our encoding: %v", n, err)
		}
		fields := md.Fields()
		if got := msg.Get(fields.ByNumber(1)).Bytes(); !bytes.Equal(got, o.data) {
			t.Fatalf("#%d: encryptedData differs", n)
		}
		if got := msg.Get(fields.ByNumber(2)).String(); got != o.keyID {
			t.Fatalf("#%d: keyID %q, want %q", n, got, o.keyID)
		}
		if got := msg.Get(fields.ByNumber(5)).Enum(); uint64(got) != uint64(o.sourceType) {
			t.Fatalf("#%d: type %d, want %d", n, got, o.sourceType)
		}
		if got := msg.Get(fields.ByNumber(4)).Map().Len(); got != len(o.annotations) {
			t.Fatalf("#%d: %d annotations, want %d", n, got, len(o.annotations))
		}

		// ... writes the same bytes, deterministically ...
		theirs, err := proto.MarshalOptions{Deterministic: true}.Marshal(msg)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(ours, theirs) {
			t.Fatalf("#%d: encodings differ:\n ours   %x\n theirs %x", n, ours, theirs)
		}
		// ... and we read what it writes.
		back, err := decodeObject(theirs)
		if err != nil {
			t.Fatalf("#%d: %v", n, err)
		}
		if !bytes.Equal(encodeObject(back), theirs) {
			t.Fatalf("#%d: decoded object differs", n)
		}
	}
}

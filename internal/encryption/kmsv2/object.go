package kmsv2

import (
	"fmt"
	"slices"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// sourceType is the EncryptedDEKSourceType enum of kube-apiserver's
// api.proto: how the plaintext of encryptedDEKSource becomes the key of
// encryptedData.
type sourceType uint64

const (
	// sourceAESGCMKey: the source is the AES-GCM key itself (read only).
	sourceAESGCMKey sourceType = 0
	// sourceHKDFSeed: the source is an HKDF-SHA256 seed; the first 32 bytes
	// of encryptedData are the info of the key's derivation.
	sourceHKDFSeed sourceType = 1
)

func (t sourceType) String() string {
	switch t {
	case sourceAESGCMKey:
		return "AES_GCM_KEY"
	case sourceHKDFSeed:
		return "HKDF_SHA256_XNONCE_AES_GCM_SEED"
	}
	return fmt.Sprintf("%d", uint64(t))
}

// Field numbers of the EncryptedObject message.
const (
	fieldData        protowire.Number = 1
	fieldKeyID       protowire.Number = 2
	fieldDEKSource   protowire.Number = 3
	fieldAnnotations protowire.Number = 4
	fieldSourceType  protowire.Number = 5

	// The key and value of a map entry.
	fieldEntryKey   protowire.Number = 1
	fieldEntryValue protowire.Number = 2
)

// The limits kube-apiserver puts on what a plugin returns.
const (
	maxKeyIDSize       = 1024
	maxDEKSourceSize   = 1024
	maxAnnotationsSize = 32 * 1024
)

// encryptedObject is the EncryptedObject message. Decoded byte fields
// alias the input.
type encryptedObject struct {
	data        []byte
	keyID       string
	dekSource   []byte
	annotations map[string][]byte
	sourceType  sourceType
}

// appendHeader appends every field but encryptedData, in field order after
// it, so that a write only has to put the data in front.
func appendHeader(b []byte, o *encryptedObject) []byte {
	if o.keyID != "" {
		b = protowire.AppendTag(b, fieldKeyID, protowire.BytesType)
		b = protowire.AppendString(b, o.keyID)
	}
	if len(o.dekSource) > 0 {
		b = protowire.AppendTag(b, fieldDEKSource, protowire.BytesType)
		b = protowire.AppendBytes(b, o.dekSource)
	}
	// Sorted, as a deterministic protobuf encoder writes maps; key and value
	// are always both written, as protobuf-go writes map entries.
	for _, k := range sortedKeys(o.annotations) {
		v := o.annotations[k]
		n := protowire.SizeTag(fieldEntryKey) + protowire.SizeBytes(len(k)) +
			protowire.SizeTag(fieldEntryValue) + protowire.SizeBytes(len(v))
		b = protowire.AppendTag(b, fieldAnnotations, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(n))
		b = protowire.AppendTag(b, fieldEntryKey, protowire.BytesType)
		b = protowire.AppendString(b, k)
		b = protowire.AppendTag(b, fieldEntryValue, protowire.BytesType)
		b = protowire.AppendBytes(b, v)
	}
	if o.sourceType != 0 {
		b = protowire.AppendTag(b, fieldSourceType, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(o.sourceType))
	}
	return b
}

// encodeObject is the whole message, as protobuf writes it.
func encodeObject(o *encryptedObject) []byte {
	return assemble(o.data, appendHeader(nil, o))
}

// assemble puts encryptedData in front of an encoded header.
func assemble(data, header []byte) []byte {
	n := protowire.SizeTag(fieldData) + protowire.SizeBytes(len(data)) + len(header)
	b := make([]byte, 0, n)
	b = protowire.AppendTag(b, fieldData, protowire.BytesType)
	b = protowire.AppendBytes(b, data)
	return append(b, header...)
}

// decodeObject parses and validates a stored EncryptedObject. As protobuf
// does, it skips fields it does not know and keeps the last of repeated
// scalar fields; unlike it, it refuses groups, and anything over the size
// limits as soon as it is seen.
func decodeObject(b []byte) (*encryptedObject, error) {
	o := &encryptedObject{}
	annotationsSize := 0
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, fmt.Errorf("%w: %w", ErrInvalidObject, protowire.ParseError(n))
		}
		b = b[n:]
		switch num {
		case fieldData, fieldKeyID, fieldDEKSource, fieldAnnotations:
			if typ != protowire.BytesType {
				return nil, fmt.Errorf("%w: field %d has wire type %d, want %d", ErrInvalidObject, num, typ, protowire.BytesType)
			}
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return nil, fmt.Errorf("%w: field %d: %w", ErrInvalidObject, num, protowire.ParseError(n))
			}
			b = b[n:]
			switch num {
			case fieldData:
				o.data = v
			case fieldKeyID:
				if len(v) > maxKeyIDSize {
					return nil, fmt.Errorf("%w: failed to validate key id: keyID is %d bytes, which exceeds the max size of %d", ErrInvalidObject, len(v), maxKeyIDSize)
				}
				if !utf8.Valid(v) {
					return nil, fmt.Errorf("%w: keyID is not valid UTF-8", ErrInvalidObject)
				}
				o.keyID = string(v)
			case fieldDEKSource:
				if len(v) > maxDEKSourceSize {
					return nil, fmt.Errorf("%w: failed to validate encrypted DEK source: encrypted DEK source is %d bytes, which exceeds the max size of %d", ErrInvalidObject, len(v), maxDEKSourceSize)
				}
				o.dekSource = v
			case fieldAnnotations:
				k, val, err := decodeEntry(v)
				if err != nil {
					return nil, err
				}
				annotationsSize += len(k) + len(val)
				if annotationsSize > maxAnnotationsSize {
					return nil, fmt.Errorf("%w: failed to validate annotations: total size of annotations exceeds the max size of %d", ErrInvalidObject, maxAnnotationsSize)
				}
				if o.annotations == nil {
					o.annotations = map[string][]byte{}
				}
				o.annotations[k] = val
			}
		case fieldSourceType:
			if typ != protowire.VarintType {
				return nil, fmt.Errorf("%w: field %d has wire type %d, want %d", ErrInvalidObject, num, typ, protowire.VarintType)
			}
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return nil, fmt.Errorf("%w: field %d: %w", ErrInvalidObject, num, protowire.ParseError(n))
			}
			b = b[n:]
			o.sourceType = sourceType(v)
		default:
			n, err := skipField(typ, b)
			if err != nil {
				return nil, fmt.Errorf("%w: field %d: %w", ErrInvalidObject, num, err)
			}
			b = b[n:]
		}
	}
	if err := validateObject(o); err != nil {
		return nil, err
	}
	return o, nil
}

// decodeEntry parses one annotations map entry.
func decodeEntry(b []byte) (string, []byte, error) {
	var key, val []byte
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return "", nil, fmt.Errorf("%w: annotation: %w", ErrInvalidObject, protowire.ParseError(n))
		}
		b = b[n:]
		if num != fieldEntryKey && num != fieldEntryValue {
			n, err := skipField(typ, b)
			if err != nil {
				return "", nil, fmt.Errorf("%w: annotation field %d: %w", ErrInvalidObject, num, err)
			}
			b = b[n:]
			continue
		}
		if typ != protowire.BytesType {
			return "", nil, fmt.Errorf("%w: annotation field %d has wire type %d, want %d", ErrInvalidObject, num, typ, protowire.BytesType)
		}
		v, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return "", nil, fmt.Errorf("%w: annotation field %d: %w", ErrInvalidObject, num, protowire.ParseError(n))
		}
		b = b[n:]
		if num == fieldEntryKey {
			key = v
		} else {
			val = v
		}
	}
	if !utf8.Valid(key) {
		return "", nil, fmt.Errorf("%w: annotation key is not valid UTF-8", ErrInvalidObject)
	}
	return string(key), val, nil
}

// skipField skips the value of an unknown field. Groups are refused: no
// version of the message has them, and skipping them means recursion.
func skipField(typ protowire.Type, b []byte) (int, error) {
	var n int
	switch typ {
	case protowire.VarintType:
		_, n = protowire.ConsumeVarint(b)
	case protowire.Fixed32Type:
		_, n = protowire.ConsumeFixed32(b)
	case protowire.Fixed64Type:
		_, n = protowire.ConsumeFixed64(b)
	case protowire.BytesType:
		_, n = protowire.ConsumeBytes(b)
	default:
		return 0, fmt.Errorf("unsupported wire type %d", typ)
	}
	if n < 0 {
		return 0, protowire.ParseError(n)
	}
	return n, nil
}

// validateObject checks what kube-apiserver checks of every EncryptedObject
// it reads or writes.
func validateObject(o *encryptedObject) error {
	switch o.sourceType {
	case sourceAESGCMKey, sourceHKDFSeed:
	default:
		return fmt.Errorf("%w: unknown encryptedDEKSourceType: %s", ErrInvalidObject, o.sourceType)
	}
	if len(o.data) == 0 {
		return fmt.Errorf("%w: encrypted data is empty", ErrInvalidObject)
	}
	if err := validateDEKSource(o.dekSource); err != nil {
		return fmt.Errorf("%w: failed to validate encrypted DEK source: %w", ErrInvalidObject, err)
	}
	if _, err := validateKeyID(o.keyID); err != nil {
		return fmt.Errorf("%w: failed to validate key id: %w", ErrInvalidObject, err)
	}
	if err := validateAnnotations(o.annotations); err != nil {
		return fmt.Errorf("%w: failed to validate annotations: %w", ErrInvalidObject, err)
	}
	return nil
}

func validateDEKSource(src []byte) error {
	if len(src) == 0 {
		return fmt.Errorf("encrypted DEK source is empty")
	}
	if len(src) > maxDEKSourceSize {
		return fmt.Errorf("encrypted DEK source is %d bytes, which exceeds the max size of %d", len(src), maxDEKSourceSize)
	}
	return nil
}

// The error label values of apiserver_envelope_encryption_invalid_key_id_from_status_total.
const (
	keyIDOK      = "ok"
	keyIDEmpty   = "empty"
	keyIDTooLong = "too_long"
)

// validateKeyID returns the metric's error label with the error.
func validateKeyID(keyID string) (string, error) {
	if keyID == "" {
		return keyIDEmpty, fmt.Errorf("keyID is empty")
	}
	if len(keyID) > maxKeyIDSize {
		return keyIDTooLong, fmt.Errorf("keyID is %d bytes, which exceeds the max size of %d", len(keyID), maxKeyIDSize)
	}
	return keyIDOK, nil
}

func validateAnnotations(annotations map[string][]byte) error {
	var errs field.ErrorList
	total := 0
	for _, k := range sortedKeys(annotations) {
		errs = append(errs, validation.IsFullyQualifiedDomainName(field.NewPath("annotations"), k)...)
		total += len(k) + len(annotations[k])
	}
	if total > maxAnnotationsSize {
		return fmt.Errorf("total size of annotations is %d, which exceeds the max size of %d", total, maxAnnotationsSize)
	}
	return errs.ToAggregate()
}

func sortedKeys(m map[string][]byte) []string {
	if len(m) == 0 {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

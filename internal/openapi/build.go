package openapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	openapi_v3 "github.com/google/gnostic-models/openapiv3"
	"google.golang.org/protobuf/proto"
)

// built holds the serialized documents.
type built struct {
	modified time.Time
	v2       artifact
	v2Proto  lazyBytes
	index    artifact                  // the /openapi/v3 discovery document
	gvs      map[string]*groupDocument // by gvPath
}

type groupDocument struct {
	json  artifact
	proto lazyBytes
}

// artifact is a serialized document and its hash, which is both its ETag
// and, for v3, the ?hash= of its URL. The hash depends on the content alone,
// so that replicas serving the same documents agree on it (a client sent by
// one replica's index to another is not redirected). SHA-256 rather than
// kube-apiserver's SHA-512: clients treat it as opaque, and it is several
// times faster where the CPU has SHA instructions.
type artifact struct {
	body []byte
	hash string
}

func newArtifact(body []byte) artifact {
	// The documents are rendered into growing buffers that end up to
	// twice their size; they are kept for the life of the server, so keep
	// only what they hold.
	if cap(body)-len(body) > len(body)/16 {
		body = bytes.Clone(body)
	}
	sum := sha256.Sum256(body)
	return artifact{body: body, hash: strings.ToUpper(hex.EncodeToString(sum[:]))}
}

// lazyBytes is derived from a JSON document the first time it is asked
// for: the protobuf forms cost more to make than the JSON they come from and
// few clients want them.
type lazyBytes struct {
	once sync.Once
	body []byte
	err  error
}

func (l *lazyBytes) get(from []byte, convert func([]byte) ([]byte, error)) ([]byte, error) {
	l.once.Do(func() { l.body, l.err = convert(from) })
	return l.body, l.err
}

// Warm renders the JSON documents now rather than on the first request.
// A server may call it once it is listening; it is safe to call from any
// goroutine and any number of times.
func (d *Documents) Warm() error {
	_, err := d.build()
	return err
}

// build renders every JSON document, once.
func (d *Documents) build() (*built, error) {
	d.once.Do(func() { d.built, d.errOut = d.render() })
	return d.built, d.errOut
}

func (d *Documents) render() (*built, error) {
	annotateLists(d.defs, smdSchema())
	b := &built{modified: time.Now().UTC().Truncate(time.Second), gvs: make(map[string]*groupDocument, len(d.gvs))}
	v2Defs, err := serializeDefinitions(d.defs, v2Flavour)
	if err != nil {
		return nil, err
	}
	v3Defs, err := serializeDefinitions(d.defs, v3Flavour)
	if err != nil {
		return nil, err
	}
	v2, err := d.renderV2(v2Defs)
	if err != nil {
		return nil, err
	}
	b.v2 = newArtifact(v2)

	entries := make(map[string][]byte, len(d.gvs))
	for _, gv := range d.gvs {
		doc, err := d.renderV3(gv, v3Defs)
		if err != nil {
			return nil, err
		}
		key := gvPath(gv)
		g := &groupDocument{json: newArtifact(doc)}
		b.gvs[key] = g
		if entries[key], err = json.Marshal(map[string]string{"serverRelativeURL": serverRelativeURL(key, g.json.hash)}); err != nil {
			return nil, fmt.Errorf("%w: v3 index: %w", ErrBuild, err)
		}
	}
	var index bytes.Buffer
	index.WriteString(`{"paths":`)
	writeObject(&index, entries)
	index.WriteString(`}`)
	b.index = newArtifact(index.Bytes())
	return b, nil
}

// serverRelativeURL is where a group-version's document lives, with the
// hash that lets clients cache it for good.
func serverRelativeURL(key, hash string) string {
	u := url.URL{Path: "/openapi/v3/" + key, RawQuery: url.Values{"hash": {hash}}.Encode()}
	return u.String()
}

func v2ToProto(doc []byte) ([]byte, error) {
	parsed, err := openapi_v2.ParseDocument(doc)
	if err != nil {
		return nil, fmt.Errorf("%w: v2 protobuf: %w", ErrBuild, err)
	}
	out, err := proto.Marshal(parsed)
	if err != nil {
		return nil, fmt.Errorf("%w: v2 protobuf: %w", ErrBuild, err)
	}
	return out, nil
}

func v3ToProto(doc []byte) ([]byte, error) {
	parsed, err := openapi_v3.ParseDocument(doc)
	if err != nil {
		return nil, fmt.Errorf("%w: v3 protobuf: %w", ErrBuild, err)
	}
	out, err := proto.Marshal(parsed)
	if err != nil {
		return nil, fmt.Errorf("%w: v3 protobuf: %w", ErrBuild, err)
	}
	return out, nil
}

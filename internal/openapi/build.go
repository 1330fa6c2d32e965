package openapi

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
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

// artifact is a serialized document, kept gzip-compressed, and its hash,
// which is both its ETag and, for v3, the ?hash= of its URL. The hash
// depends on the content alone, so that replicas serving the same
// documents agree on it (a client sent by one replica's index to another
// is not redirected). SHA-256 rather than kube-apiserver's SHA-512: clients
// treat it as opaque, and it is several times faster where the CPU has SHA
// instructions.
//
// Compressed because the documents are large (about 9 MB of JSON in all)
// and live as long as the server, while clients almost all take gzip
// (client-go asks for it): kept plain they were a third of the idle heap.
type artifact struct {
	gz   []byte
	hash string
}

func newArtifact(body []byte) (artifact, error) {
	sum := sha256.Sum256(body)
	var b bytes.Buffer
	b.Grow(len(body) / 8)
	zw, err := gzip.NewWriterLevel(&b, gzip.BestSpeed)
	if err != nil {
		return artifact{}, err
	}
	if _, err := zw.Write(body); err != nil {
		return artifact{}, err
	}
	if err := zw.Close(); err != nil {
		return artifact{}, err
	}
	return artifact{gz: bytes.Clone(b.Bytes()), hash: strings.ToUpper(hex.EncodeToString(sum[:]))}, nil
}

// plain returns the document uncompressed, for clients that do not take
// gzip and for the conversions to protobuf.
func (a artifact) plain() ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(a.gz))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBuild, err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBuild, err)
	}
	return out, nil
}

// lazyBytes is derived from a JSON document the first time it is asked
// for: the protobuf forms cost more to make than the JSON they come from and
// few clients want them.
type lazyBytes struct {
	once sync.Once
	body []byte
	err  error
}

func (l *lazyBytes) get(from artifact, convert func([]byte) ([]byte, error)) ([]byte, error) {
	l.once.Do(func() {
		var js []byte
		if js, l.err = from.plain(); l.err == nil {
			l.body, l.err = convert(js)
		}
	})
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
	if b.v2, err = newArtifact(v2); err != nil {
		return nil, fmt.Errorf("%w: v2: %w", ErrBuild, err)
	}

	entries := make(map[string][]byte, len(d.gvs))
	for _, gv := range d.gvs {
		doc, err := d.renderV3(gv, v3Defs)
		if err != nil {
			return nil, err
		}
		key := gvPath(gv)
		g := &groupDocument{}
		if g.json, err = newArtifact(doc); err != nil {
			return nil, fmt.Errorf("%w: v3 %s: %w", ErrBuild, key, err)
		}
		b.gvs[key] = g
		if entries[key], err = json.Marshal(map[string]string{"serverRelativeURL": serverRelativeURL(key, g.json.hash)}); err != nil {
			return nil, fmt.Errorf("%w: v3 index: %w", ErrBuild, err)
		}
	}
	var index bytes.Buffer
	index.WriteString(`{"paths":`)
	writeObject(&index, entries)
	index.WriteString(`}`)
	if b.index, err = newArtifact(index.Bytes()); err != nil {
		return nil, fmt.Errorf("%w: v3 index: %w", ErrBuild, err)
	}
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

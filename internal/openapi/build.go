package openapi

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	openapi_v3 "github.com/google/gnostic-models/openapiv3"
	"google.golang.org/protobuf/proto"
)

// built holds the serialized documents of one custom resource set.
type built struct {
	custom   *customSet // what it was built for
	modified time.Time
	v2       lazyArtifact
	v2Proto  lazyBytes
	index    artifact                  // the /openapi/v3 discovery document
	gvs      map[string]*groupDocument // by gvPath
	// customGroups are the documents of the custom group-versions, with
	// what they were made of, for the next build to reuse.
	customGroups map[string]*customGroup
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
	zw := gzipWriters.Get().(*gzip.Writer)
	defer gzipWriters.Put(zw)
	zw.Reset(&b)
	if _, err := zw.Write(body); err != nil {
		return artifact{}, err
	}
	if err := zw.Close(); err != nil {
		return artifact{}, err
	}
	return artifact{gz: bytes.Clone(b.Bytes()), hash: strings.ToUpper(hex.EncodeToString(sum[:]))}, nil
}

// gzipWriters keeps the compressors: each holds about a megabyte of state,
// and a change of the custom resources compresses one document per custom
// group-version.
var gzipWriters = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed) // a valid level cannot fail
	return zw
}}

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

// lazyArtifact is a document made the first time it is asked for: the v2
// document is the largest and the one clients ask for least, so a change of
// the custom resources does not make it again until a client does.
type lazyArtifact struct {
	once sync.Once
	make func() (artifact, error)
	a    artifact
	err  error
}

func (l *lazyArtifact) get() (artifact, error) {
	l.once.Do(func() { l.a, l.err = l.make() })
	return l.a, l.err
}

// Warm renders the JSON documents now rather than on the first request.
// A server may call it once it is listening; it is safe to call from any
// goroutine and any number of times.
func (d *Documents) Warm() error {
	b, err := d.build()
	if err != nil {
		return err
	}
	_, err = b.v2.get()
	return err
}

// build returns the documents of the current custom resource set, making
// them if that set changed since the last build. Builds are serialized;
// requests that find the current build take no lock.
func (d *Documents) build() (*built, error) {
	set := d.custom.Load()
	if b := d.current.Load(); b != nil && b.custom == set {
		return b, nil
	}
	d.buildMu.Lock()
	defer d.buildMu.Unlock()
	set = d.custom.Load()
	prev := d.current.Load()
	if prev != nil && prev.custom == set {
		return prev, nil
	}
	base, err := d.serializeBase()
	if err != nil {
		return nil, err
	}
	b, err := d.assemble(base, set, prev)
	if err != nil {
		return nil, err
	}
	d.current.Store(b)
	return b, nil
}

// base is the built-in model serialized. It does not depend on the custom
// resources, so it is made once and every build shares it.
type base struct {
	v2Defs, v3Defs map[string][]byte // every definition of the model
	v2Paths        map[string][]byte // every built-in path
	v2Used         []string          // the definitions the built-in paths reach
	gvs            map[string]*groupDocument
	entries        map[string][]byte // the v3 index entries of gvs
}

func (d *Documents) serializeBase() (*base, error) {
	d.baseOnce.Do(func() { d.base, d.baseErr = d.renderBase() })
	return d.base, d.baseErr
}

func (d *Documents) renderBase() (*base, error) {
	annotateLists(d.defs, smdSchema())
	b := &base{gvs: make(map[string]*groupDocument, len(d.gvs)), entries: make(map[string][]byte, len(d.gvs))}
	var err error
	if b.v2Defs, err = serializeDefinitions(d.defs, v2Flavour); err != nil {
		return nil, err
	}
	if b.v3Defs, err = serializeDefinitions(d.defs, v3Flavour); err != nil {
		return nil, err
	}
	if b.v2Paths, err = v2Writer.paths(d.paths, nil); err != nil {
		return nil, fmt.Errorf("v2: %w", err)
	}
	for name := range closure(d.defs, d.pathRefs(nil)) {
		b.v2Used = append(b.v2Used, name)
	}
	for _, gv := range d.gvs {
		doc, err := d.renderV3(gv, b.v3Defs)
		if err != nil {
			return nil, err
		}
		key := gvPath(gv)
		g := &groupDocument{}
		if g.json, err = newArtifact(doc); err != nil {
			return nil, fmt.Errorf("%w: v3 %s: %w", ErrBuild, key, err)
		}
		b.gvs[key] = g
		if b.entries[key], err = indexEntry(key, g.json.hash); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// assemble makes the documents of the custom resource set from the base
// and the custom resources' pieces, serialized by SetCustom. A custom
// group-version's document whose resources are those of prev is reused;
// the v2 document is made when first asked for.
func (d *Documents) assemble(base *base, set *customSet, prev *built) (*built, error) {
	b := &built{
		custom:       set,
		modified:     time.Now().UTC().Truncate(time.Second),
		gvs:          maps.Clone(base.gvs),
		customGroups: make(map[string]*customGroup, len(set.groups)),
	}
	entries := maps.Clone(base.entries)
	for key, members := range set.groups {
		var g *customGroup
		if prev != nil {
			if old := prev.customGroups[key]; old != nil && slices.Equal(old.members, members) {
				g = old
			}
		}
		if g == nil {
			doc, err := d.renderCustomV3(members, base.v3Defs)
			if err != nil {
				return nil, err
			}
			g = &customGroup{members: members, doc: &groupDocument{}}
			if g.doc.json, err = newArtifact(doc); err != nil {
				return nil, fmt.Errorf("%w: v3 %s: %w", ErrBuild, key, err)
			}
		}
		b.customGroups[key] = g
		b.gvs[key] = g.doc
		var err error
		if entries[key], err = indexEntry(key, g.doc.json.hash); err != nil {
			return nil, err
		}
	}
	var index bytes.Buffer
	index.WriteString(`{"paths":`)
	writeObject(&index, entries)
	index.WriteString(`}`)
	var err error
	if b.index, err = newArtifact(index.Bytes()); err != nil {
		return nil, fmt.Errorf("%w: v3 index: %w", ErrBuild, err)
	}
	b.v2.make = func() (artifact, error) {
		doc, err := d.renderV2(base, set)
		if err != nil {
			return artifact{}, err
		}
		a, err := newArtifact(doc)
		if err != nil {
			return artifact{}, fmt.Errorf("%w: v2: %w", ErrBuild, err)
		}
		return a, nil
	}
	return b, nil
}

func indexEntry(key, hash string) ([]byte, error) {
	e, err := json.Marshal(map[string]string{"serverRelativeURL": serverRelativeURL(key, hash)})
	if err != nil {
		return nil, fmt.Errorf("%w: v3 index: %w", ErrBuild, err)
	}
	return e, nil
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

package rest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/portcullis/portcullis/internal/objects"
	"github.com/portcullis/portcullis/internal/registry"
	"github.com/portcullis/portcullis/internal/storage"
)

// bookmarkInterval is how often an idle watch that allows bookmarks gets
// one, so clients can resume from a recent resourceVersion.
const bookmarkInterval = time.Minute

// initialEventsEnd is the annotation on the bookmark that ends the initial
// events of a watch with sendInitialEvents=true.
const initialEventsEnd = "k8s.io/initial-events-end"

// watchEncoder writes watch events in the negotiated framing.
type watchEncoder struct {
	h     *Handler
	w     http.ResponseWriter
	f     http.Flusher
	enc   runtime.Encoder
	proto bool
	table *metav1.TableOptions
	res   *registry.Resource
	buf   bytes.Buffer
}

func (e *watchEncoder) send(typ watch.EventType, obj runtime.Object) error {
	if e.table != nil && typ != watch.Error && typ != watch.Bookmark {
		t, err := e.h.table(e.res, obj, *e.table)
		if err != nil {
			return err
		}
		obj = t
	}
	e.buf.Reset()
	objBytes, err := e.h.c.encode(e.enc, obj)
	if err != nil {
		return err
	}
	ev := &metav1.WatchEvent{Type: string(typ), Object: runtime.RawExtension{Raw: objBytes}}
	if e.proto {
		data, err := ev.Marshal()
		if err != nil {
			return err
		}
		var n [4]byte
		n[0], n[1], n[2], n[3] = byte(len(data)>>24), byte(len(data)>>16), byte(len(data)>>8), byte(len(data))
		e.buf.Write(n[:])
		e.buf.Write(data)
	} else {
		e.buf.WriteString(`{"type":"`)
		e.buf.WriteString(string(typ))
		e.buf.WriteString(`","object":`)
		e.buf.Write(bytes.TrimSpace(objBytes))
		e.buf.WriteString("}\n")
	}
	if _, err := e.w.Write(e.buf.Bytes()); err != nil {
		return err
	}
	e.f.Flush()
	return nil
}

func (h *Handler) watch(w http.ResponseWriter, r *http.Request, t target) {
	opts, err := h.decodeListOptions(r)
	if err != nil {
		h.rs.Error(w, r, err)
		return
	}
	if t.name != "" {
		// /watch/.../name narrows the watch to that object.
		if opts.FieldSelector != "" {
			opts.FieldSelector += ","
		}
		opts.FieldSelector += "metadata.name=" + t.name
	}
	sel, err := h.parseSelection(t.res, opts)
	if err != nil {
		h.rs.Error(w, r, err)
		return
	}
	rv, err := parseRV(opts.ResourceVersion)
	if err != nil {
		h.rs.Error(w, r, err)
		return
	}
	sendInitial := opts.SendInitialEvents != nil && *opts.SendInitialEvents
	if opts.SendInitialEvents != nil {
		if !opts.AllowWatchBookmarks || opts.ResourceVersionMatch != metav1.ResourceVersionMatchNotOlderThan {
			h.rs.Error(w, r, apierrors.NewInvalid(metav1.SchemeGroupVersion.WithKind("ListOptions").GroupKind(), "", field.ErrorList{
				field.Forbidden(field.NewPath("sendInitialEvents"), "sendInitialEvents is forbidden for watch unless allowWatchBookmarks=true and resourceVersionMatch=NotOlderThan")}))
			return
		}
	} else if opts.ResourceVersionMatch != "" {
		h.rs.Error(w, r, apierrors.NewBadRequest("resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"))
		return
	}
	// Without a resourceVersion (or with "0") a watch starts with the
	// current state as ADDED events, like kube-apiserver's legacy watch.
	if opts.SendInitialEvents == nil && rv == 0 {
		sendInitial = true
	}

	enc, typ, table, proto, err := h.watchNegotiate(r, t.res)
	if err != nil {
		h.rs.Error(w, r, err)
		return
	}
	flusher, ok := w.(http.Flusher)
	if !ok {
		h.rs.Error(w, r, apierrors.NewInternalError(errors.New("response writer does not support streaming")))
		return
	}

	timeout := time.Duration(30+rand.IntN(30)) * time.Minute
	if opts.TimeoutSeconds != nil {
		timeout = time.Duration(*opts.TimeoutSeconds) * time.Second
	}
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()

	prefix := t.res.NamespacePrefix(t.ns)
	var initial []storage.KeyValue
	startRev := rv
	if sendInitial {
		if rv > 0 {
			if err := h.waitForRevision(ctx, rv); err != nil {
				h.rs.Error(w, r, err)
				return
			}
		}
		out, err := h.store.List(ctx, prefix, storage.ListOptions{})
		if err != nil {
			h.rs.Error(w, r, objects.StorageError(err, t.res.GroupResource(), ""))
			return
		}
		initial, startRev = out.KVs, out.Revision
	}
	events, err := h.store.Watch(ctx, prefix, startRev)
	compacted := errors.Is(err, storage.ErrCompacted)
	if err != nil && !compacted {
		h.rs.Error(w, r, objects.StorageError(err, t.res.GroupResource(), ""))
		return
	}

	w.Header().Set("Content-Type", typ)
	w.Header().Set("Cache-Control", "no-cache, private")
	writeWarnings(w, r)
	w.WriteHeader(http.StatusOK)
	flusher.Flush()
	e := &watchEncoder{h: h, w: w, f: flusher, enc: enc, proto: proto, table: table, res: t.res}

	if compacted {
		_, oldest, _ := h.store.Revision(ctx)
		st := apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d (%d)", rv, oldest+1)).Status()
		_ = e.send(watch.Error, &st)
		return
	}
	for _, kv := range initial {
		obj, err := h.o.Decode(t.res, kv)
		if err != nil {
			return
		}
		if sel.matches(t.res, obj) {
			if e.send(watch.Added, obj) != nil {
				return
			}
		}
	}
	lastRV := startRev
	if opts.SendInitialEvents != nil && *opts.SendInitialEvents {
		if e.send(watch.Bookmark, h.bookmark(t.res, lastRV, true)) != nil {
			return
		}
	}

	var tick <-chan time.Time
	if opts.AllowWatchBookmarks {
		ticker := time.NewTicker(bookmarkInterval)
		defer ticker.Stop()
		tick = ticker.C
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-h.cfg.Stopping:
			return
		case <-tick:
			if e.send(watch.Bookmark, h.bookmark(t.res, lastRV, false)) != nil {
				return
			}
		case ev, ok := <-events:
			if !ok {
				return
			}
			if ev.Type == storage.EventError {
				var corrupt *storage.CorruptError
				switch {
				case errors.Is(ev.Err, storage.ErrCompacted):
					st := apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d", lastRV)).Status()
					_ = e.send(watch.Error, &st)
				case errors.As(ev.Err, &corrupt):
					st := corruptWatchStatus(corrupt)
					_ = e.send(watch.Error, &st)
				}
				return
			}
			typ, obj, err := h.translate(t.res, sel, ev)
			if err != nil {
				st := apierrors.NewInternalError(err).Status()
				_ = e.send(watch.Error, &st)
				return
			}
			lastRV = ev.KV.ModRevision
			if obj == nil {
				continue
			}
			if e.send(typ, obj) != nil {
				return
			}
		}
	}
}

// translate turns a store event into the API event a watcher with sel
// sees: an object leaving the selection is DELETED, entering it ADDED.
func (h *Handler) translate(res *registry.Resource, sel selection, ev storage.Event) (watch.EventType, runtime.Object, error) {
	var cur, prev runtime.Object
	var err error
	if ev.Type != storage.EventDelete {
		if cur, err = h.o.Decode(res, ev.KV); err != nil {
			return "", nil, err
		}
	}
	if ev.PrevKV != nil && (ev.Type == storage.EventDelete || !sel.everything()) {
		if prev, err = h.o.Decode(res, *ev.PrevKV); err != nil {
			return "", nil, err
		}
	}
	switch ev.Type {
	case storage.EventCreate:
		if sel.matches(res, cur) {
			return watch.Added, cur, nil
		}
	case storage.EventUpdate:
		curOK := sel.matches(res, cur)
		prevOK := prev == nil || sel.matches(res, prev)
		switch {
		case curOK && prevOK:
			return watch.Modified, cur, nil
		case curOK:
			return watch.Added, cur, nil
		case prevOK:
			setRV(cur, ev.KV.ModRevision)
			return watch.Deleted, cur, nil
		}
	case storage.EventDelete:
		if prev != nil && sel.matches(res, prev) {
			setRV(prev, ev.KV.ModRevision)
			return watch.Deleted, prev, nil
		}
	}
	return "", nil, nil
}

// bookmark is the object of a BOOKMARK event: an empty object of the
// resource's kind carrying only the resourceVersion.
func (h *Handler) bookmark(res *registry.Resource, rev int64, initialEnd bool) runtime.Object {
	obj := res.New()
	m, _ := meta.Accessor(obj)
	m.SetResourceVersion(strconv.FormatInt(rev, 10))
	if initialEnd {
		m.SetAnnotations(map[string]string{initialEventsEnd: "true"})
	}
	obj.GetObjectKind().SetGroupVersionKind(res.GVK())
	return obj
}

// watchNegotiate picks the encoding of the watch stream.
func (h *Handler) watchNegotiate(r *http.Request, res *registry.Resource) (runtime.Encoder, string, *metav1.TableOptions, bool, error) {
	for _, mt := range parseAccept(r.Header.Get("Accept")) {
		enc, typ := h.c.encoderFor(mt.typ, false)
		if enc == nil || typ == mediaYAML || !customMedia(res, typ) {
			continue
		}
		proto := typ == mediaProtobuf
		if proto {
			typ = mediaProtobuf + ";stream=watch"
		}
		switch mt.as() {
		case "":
			return enc, typ, nil, proto, nil
		case "Table":
			if mt.params["g"] == "meta.k8s.io" {
				opts := &metav1.TableOptions{}
				if err := h.c.params.DecodeParameters(r.URL.Query(), metav1.SchemeGroupVersion, opts); err != nil {
					return nil, "", nil, false, apierrors.NewBadRequest(err.Error())
				}
				return enc, typ, opts, proto, nil
			}
		}
	}
	return nil, "", nil, false, apierrors.NewGenericServerResponse(http.StatusNotAcceptable, "watch", metav1.SchemeGroupVersion.WithResource("").GroupResource(), "",
		"only the following media types are accepted: application/json, application/vnd.kubernetes.protobuf;stream=watch", 0, false)
}

// corruptWatchStatus is the error event of a watch that met a value it
// cannot read: a StorageReadError for the delete of a corrupt object (an
// unsafe delete, typically), an internal error otherwise, as in
// kube-apiserver. The watch ends after it; clients list again.
func corruptWatchStatus(e *storage.CorruptError) metav1.Status {
	if e.Deleted {
		return metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Reason: metav1.StatusReasonStoreReadError, Message: e.Error()}
	}
	return apierrors.NewInternalError(e).Status()
}

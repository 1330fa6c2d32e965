package manifest

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Set is one valid configuration of a directory: typed
// admissionregistration/v1 objects in file-name then document order, and the
// content hash they were read from.
type Set struct {
	Objects []runtime.Object
	Hash    string
}

// ValidateFunc applies defaults to an object in place and validates it as
// the API would; Load reports what it returns against the object's location.
type ValidateFunc func(obj runtime.Object) field.ErrorList

type location struct {
	file string
	doc  int
	item string
}

func (l location) String() string {
	s := fmt.Sprintf("%s document %d", l.file, l.doc)
	if l.item != "" {
		s += " " + l.item
	}
	return s
}

// Load reads dir, accepts only the kinds of plugin and returns the Set, or
// every problem found, each a *LoadError joined with errors.Join. validate
// may be nil. Nothing of a directory with any problem is returned: a
// configuration is used whole or not at all.
func Load(dir string, plugin Kind, validate ValidateFunc) (*Set, error) {
	if err := plugin.valid(); err != nil {
		return nil, err
	}
	files, hash, err := readFiles(dir)
	if err != nil {
		return nil, err
	}
	var (
		errs    []error
		objects []runtime.Object
		seen    = map[string]location{} // kind + "/" + name
		binds   []decoded
		where   = map[runtime.Object]location{}
	)
	for _, f := range files {
		docs, err := decodeFile(plugin, f.path, f.data)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, d := range docs {
			loc := location{file: f.path, doc: d.doc, item: d.item}
			name := objectName(d.obj)
			fail := func(err error) {
				errs = append(errs, &LoadError{File: f.path, Doc: d.doc, Item: d.item, Kind: d.kind, Name: name, Err: err})
			}
			bad := false
			if validate != nil {
				if fe := validate(d.obj); len(fe) > 0 {
					fail(fmt.Errorf("%w: %w", ErrInvalidObject, fe.ToAggregate()))
					bad = true
				}
			}
			if err := checkName(name); err != nil {
				fail(err)
				bad = true
			} else if prev, dup := seen[d.kind+"/"+name]; dup {
				fail(fmt.Errorf("metadata.name: %w %q: also defined in %s", ErrDuplicateName, name, prev))
				bad = true
			} else {
				seen[d.kind+"/"+name] = loc
			}
			for _, err := range checkRestrictions(d.obj) {
				fail(err)
				bad = true
			}
			if bad {
				continue
			}
			if _, _, ok := bindingPolicy(d.obj); ok {
				binds = append(binds, d)
				where[d.obj] = loc
			}
			objects = append(objects, d.obj)
		}
	}
	for _, b := range binds {
		kind, policy, _ := bindingPolicy(b.obj)
		if _, ok := seen[kind+"/"+policy]; !ok && policy != "" {
			loc := where[b.obj]
			errs = append(errs, &LoadError{File: loc.file, Doc: loc.doc, Item: loc.item, Kind: b.kind, Name: objectName(b.obj),
				Err: fmt.Errorf("spec.policyName: %w: %s %q", ErrPolicyNotFound, kind, policy)})
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return &Set{Objects: objects, Hash: hash}, nil
}

func objectName(obj runtime.Object) string {
	m, err := meta.Accessor(obj)
	if err != nil {
		return ""
	}
	return m.GetName()
}

// Key identifies an object within a Set: its kind and name.
func Key(obj runtime.Object) string {
	return obj.GetObjectKind().GroupVersionKind().Kind + "/" + objectName(obj)
}

// Diff tells an engine fed by Upsert and Delete what a reload changed:
// upserts holds the objects of next that are new or differ from prev, in
// next's order; deletes holds the objects of prev whose key is gone. A nil
// prev means everything in next is new.
func Diff(prev, next *Set) (upserts, deletes []runtime.Object) {
	old := map[string]runtime.Object{}
	if prev != nil {
		for _, o := range prev.Objects {
			old[Key(o)] = o
		}
	}
	kept := map[string]bool{}
	if next != nil {
		for _, o := range next.Objects {
			k := Key(o)
			kept[k] = true
			if p, ok := old[k]; !ok || !equality.Semantic.DeepEqual(p, o) {
				upserts = append(upserts, o)
			}
		}
	}
	if prev != nil {
		for _, o := range prev.Objects {
			if !kept[Key(o)] {
				deletes = append(deletes, o)
			}
		}
	}
	return upserts, deletes
}

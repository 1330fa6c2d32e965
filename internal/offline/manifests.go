package offline

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// ReadManifests reads the objects of files and directories, in order: a
// directory's .yaml, .yml and .json files in lexical order, recursively;
// "-" is standard input (in). Multi-document YAML is split and Lists are
// expanded. An object without apiVersion or kind is an error that names
// its file and document.
func ReadManifests(paths []string, in io.Reader) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	err := eachManifestFile(paths, in, func(_ string, objs []*unstructured.Unstructured) error {
		out = append(out, objs...)
		return nil
	})
	return out, err
}

// eachManifestFile reads the files of paths as ReadManifests does and
// hands each file's objects to fn, in order.
func eachManifestFile(paths []string, in io.Reader, fn func(file string, objs []*unstructured.Unstructured) error) error {
	for _, p := range paths {
		if p == "-" {
			if in == nil {
				return errors.New("-: standard input is not read here")
			}
			objs, err := decodeManifests("stdin", in)
			if err != nil {
				return err
			}
			if err := fn("stdin", objs); err != nil {
				return err
			}
			continue
		}
		files, err := manifestFiles(p)
		if err != nil {
			return err
		}
		for _, f := range files {
			objs, err := readManifestFile(f)
			if err != nil {
				return err
			}
			if err := fn(f, objs); err != nil {
				return err
			}
		}
	}
	return nil
}

// manifestFiles is p itself, or the manifests under the directory p.
func manifestFiles(p string) ([]string, error) {
	info, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return []string{p}, nil
	}
	var files []string
	err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		switch strings.ToLower(filepath.Ext(path)) {
		case ".yaml", ".yml", ".json":
			files = append(files, path)
		}
		return nil
	})
	return files, err
}

func readManifestFile(path string) ([]*unstructured.Unstructured, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return decodeManifests(path, f)
}

// decodeManifests splits r into documents and decodes each one.
func decodeManifests(name string, r io.Reader) ([]*unstructured.Unstructured, error) {
	docs, err := splitDocuments(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var out []*unstructured.Unstructured
	for i, doc := range docs {
		obj, err := decodeObject(doc)
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", name, i+1, err)
		}
		if obj == nil {
			continue
		}
		items, err := expandList(obj)
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", name, i+1, err)
		}
		for j, item := range items {
			if item.GetAPIVersion() == "" || item.GetKind() == "" {
				where := ""
				if obj.IsList() {
					where = fmt.Sprintf(" item %d:", j+1)
				}
				return nil, fmt.Errorf("%s: document %d:%s apiVersion and kind are required", name, i+1, where)
			}
		}
		out = append(out, items...)
	}
	return out, nil
}

// maxDocument bounds one manifest document, as the API bounds a request
// body (3 MiB) with room for YAML's verbosity.
const maxDocument = 16 << 20

// splitDocuments returns the YAML (or JSON) documents of r as JSON.
func splitDocuments(r io.Reader) ([][]byte, error) {
	reader := utilyaml.NewYAMLReader(bufio.NewReaderSize(r, 64<<10))
	var docs [][]byte
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		if len(doc) > maxDocument {
			return nil, fmt.Errorf("a document is larger than %d bytes", maxDocument)
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		j, err := utilyaml.ToJSON(doc)
		if err != nil {
			return nil, err
		}
		docs = append(docs, j)
	}
}

// decodeObject decodes one JSON document; nil for an empty one (a YAML
// document of only comments).
func decodeObject(doc []byte) (*unstructured.Unstructured, error) {
	if t := bytes.TrimSpace(doc); len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return nil, nil
	}
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(doc); err != nil {
		return nil, err
	}
	return obj, nil
}

// expandList returns the items of a List (any kind ending in "List"
// with items), else obj alone.
func expandList(obj *unstructured.Unstructured) ([]*unstructured.Unstructured, error) {
	if !obj.IsList() {
		return []*unstructured.Unstructured{obj}, nil
	}
	list, err := obj.ToList()
	if err != nil {
		return nil, err
	}
	out := make([]*unstructured.Unstructured, 0, len(list.Items))
	for i := range list.Items {
		out = append(out, &list.Items[i])
	}
	return out, nil
}

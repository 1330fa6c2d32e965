package configfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// Type is what a configuration file must declare in apiVersion and kind.
type Type struct {
	// Kind is the kind the file must name.
	Kind string
	// Versions are the apiVersions accepted for Kind, named in errors in
	// this order. They all decode into one Go type, so they must have the
	// same fields.
	Versions []string
	// Legacy are further apiVersion/kind pairs read as Kind: forms an old
	// release or documentation spread that kube-apiserver still reads.
	// Errors do not suggest them.
	Legacy []metav1.TypeMeta
}

// Decode reads data, a configuration file in YAML or JSON, into out (a
// pointer), as strictly as kube-apiserver's strict decoder: duplicate
// keys, unknown fields and field names in the wrong case are errors. It
// neither defaults nor validates.
//
// Its errors carry no package prefix, so that callers wrap them in their
// own sentinel with %w: ErrEmpty for data that is only white space, a
// *TypeError for a file of another type, and otherwise the parser's error
// or a "strict decoding error: ..." naming every offending field by path.
func (t Type) Decode(data []byte, out any) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return ErrEmpty
	}
	// JSON goes straight to the JSON decoder, as kube-apiserver's
	// recognizer sends it, so that its duplicate keys are reported with
	// their field path instead of a line number; YAML is converted by the
	// strict converter, the only step that sees duplicate YAML keys.
	js := data
	if !json.Valid(data) {
		var err error
		if js, err = yaml.YAMLToJSONStrict(data); err != nil {
			return err
		}
	}
	// The type is checked before the fields so that another kind of file
	// is reported as such rather than as a heap of unknown fields.
	var tm metav1.TypeMeta
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(js, &tm); err != nil {
		return err
	}
	if err := t.check(tm); err != nil {
		return err
	}
	strict, err := sigsjson.UnmarshalStrict(js, out)
	if err != nil {
		return err
	}
	if len(strict) > 0 {
		return &strictError{errs: strict}
	}
	return nil
}

func (t Type) check(tm metav1.TypeMeta) error {
	if slices.Contains(t.Legacy, tm) || (tm.Kind == t.Kind && slices.Contains(t.Versions, tm.APIVersion)) {
		return nil
	}
	return &TypeError{APIVersion: tm.APIVersion, Kind: tm.Kind, Want: t}
}

// TypeError is a file that declares another apiVersion or kind than the
// Type it was decoded as. Callers wanting other words can errors.As it.
type TypeError struct {
	// APIVersion and Kind are what the file declares ("" when absent).
	APIVersion, Kind string
	// Want is what was expected.
	Want Type
}

// Error names the first of apiVersion and kind that is wrong, apiVersion
// first since a file of another group is best described by its group.
func (e *TypeError) Error() string {
	switch {
	case e.APIVersion == "":
		return "apiVersion is missing"
	case !slices.Contains(e.Want.Versions, e.APIVersion):
		want := strings.Join(e.Want.Versions, ", ")
		if len(e.Want.Versions) > 1 {
			want = "one of " + want
		}
		return fmt.Sprintf("unsupported apiVersion %q, want %s", e.APIVersion, want)
	case e.Kind == "":
		return "kind is missing"
	}
	return fmt.Sprintf("expected kind %s, got %q", e.Want.Kind, e.Kind)
}

// strictError lists every unknown, duplicate or case-mismatched field, in
// apimachinery's words.
type strictError struct{ errs []error }

func (e *strictError) Error() string {
	msgs := make([]string, len(e.errs))
	for i, err := range e.errs {
		msgs[i] = err.Error()
	}
	return "strict decoding error: " + strings.Join(msgs, ", ")
}

func (e *strictError) Unwrap() []error { return e.errs }

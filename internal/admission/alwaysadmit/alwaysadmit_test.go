package alwaysadmit

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
)

func TestAdmitsEverything(t *testing.T) {
	for _, op := range []admission.Operation{admission.Create, admission.Update, admission.Delete, admission.Connect} {
		t.Run(string(op), func(t *testing.T) {
			a := &admission.Attributes{
				Resource:  schema.GroupVersionResource{Version: "v1", Resource: "pods"},
				Namespace: "default",
				Name:      "p",
				Operation: op,
				Object:    &corev1.Pod{},
			}
			if err := New().Admit(context.Background(), a); err != nil {
				t.Errorf("Admit: %v", err)
			}
			if err := New().Validate(context.Background(), a); err != nil {
				t.Errorf("Validate: %v", err)
			}
		})
	}
}

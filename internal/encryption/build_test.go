package encryption

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/storage/bbolt"
)

// TestEventsFollowCoreEvents checks that the Events of events.k8s.io are
// encrypted by the rules for core events: kube-apiserver stores both as
// core events, so a configuration names them "events" (or "*."), and
// refuses "*.events.k8s.io".
func TestEventsFollowCoreEvents(t *testing.T) {
	ctx := context.Background()
	events := []Resource{
		{KeyPrefix: "/registry/events/", GroupResource: schema.GroupResource{Resource: "events"}},
		{KeyPrefix: "/registry/events.k8s.io/events/", GroupResource: schema.GroupResource{Group: "events.k8s.io", Resource: "events"}},
	}
	tests := []struct {
		name      string
		resources string
		encrypted bool
	}{
		{name: "events", resources: "[events]", encrypted: true},
		{name: "core group", resources: "['*.']", encrypted: true},
		{name: "everything", resources: "['*.*']", encrypted: true},
		{name: "others only", resources: "[secrets]", encrypted: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			raw, err := bbolt.Open(filepath.Join(dir, "db"), bbolt.Options{})
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "enc.yaml")
			if err := os.WriteFile(path, []byte(encConfig("- resources: "+tt.resources+"\n  providers:\n"+gcm("k1", 1))), 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := New(raw, Options{ConfigFile: path, Resources: events})
			if err != nil {
				_ = raw.Close()
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close() })
			for _, r := range events {
				key := r.KeyPrefix + "ns/e"
				if _, err := s.Create(ctx, key, []byte("event")); err != nil {
					t.Fatal(err)
				}
				stored, err := raw.Get(ctx, key)
				if err != nil {
					t.Fatal(err)
				}
				if got := bytes.HasPrefix(stored.Value, []byte(encryptedPrefix)); got != tt.encrypted {
					t.Errorf("%s: encrypted = %v, want %v", key, got, tt.encrypted)
				}
			}
		})
	}
}

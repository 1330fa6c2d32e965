package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	"github.com/portcullis/portcullis/internal/encryption/kmsv2/kmstest"
	"github.com/portcullis/portcullis/test/e2e/harness"
)

// kmsPlugin is the test KMS v2 plugin running as its own process.
type kmsPlugin struct {
	socket, control string
	cmd             *exec.Cmd
	stderr          *syncBuffer
	done            chan struct{}
}

// startKMSPlugin runs test/kmsplugin on a socket in dir; the test's
// cleanup stops it.
func startKMSPlugin(t *testing.T, dir string) *kmsPlugin {
	t.Helper()
	p := &kmsPlugin{socket: filepath.Join(dir, "kms.sock"), control: filepath.Join(dir, "control.json")}
	p.setControl(t, kmstest.Control{})
	p.start(t)
	t.Cleanup(p.stop)
	return p
}

func (p *kmsPlugin) start(t *testing.T) {
	t.Helper()
	p.stderr = &syncBuffer{}
	p.done = make(chan struct{})
	p.cmd = exec.Command(harness.BuildKMSPlugin(t), "--listen", "unix://"+p.socket, "--control-file", p.control, "--key-id", "key-1")
	p.cmd.Stderr = p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("starting the KMS plugin: %v", err)
	}
	go func() {
		_ = p.cmd.Wait()
		close(p.done)
	}()
	eventually(t, "KMS plugin serving", func() error {
		if !strings.Contains(p.stderr.String(), "kmstest: serving") {
			return fmt.Errorf("not yet:\n%s", p.stderr)
		}
		return nil
	})
}

// stop ends the plugin with SIGTERM; a no-op once it has exited.
func (p *kmsPlugin) stop() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

func (p *kmsPlugin) setControl(t *testing.T, c kmstest.Control) {
	t.Helper()
	if err := kmstest.WriteControl(p.control, c); err != nil {
		t.Fatal(err)
	}
}

// TestEncryptionKMS stores secrets through a real KMS v2 plugin process
// and takes the plugin through a key rotation, errors, slowness and an
// outage.
func TestEncryptionKMS(t *testing.T) {
	t.Parallel()
	// Unix socket paths are short; t.TempDir() can be too long.
	dir, err := os.MkdirTemp("", "kms")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	plugin := startKMSPlugin(t, dir)
	cfg := encryptionConfig(t, filepath.Join(dir, "enc.yaml"), fmt.Sprintf(`- resources: [secrets]
  providers:
  - kms:
      apiVersion: v2
      name: testkms
      endpoint: unix://%s
      timeout: 1s
  - identity: {}
`, plugin.socket))
	s := harness.Start(t, "--encryption-provider-config", cfg)
	if out := s.MustKubectl(t, "get", "--raw", "/readyz/kms-providers"); out != "ok" {
		t.Fatalf("/readyz/kms-providers: %q", out)
	}
	s.MustKubectl(t, "create", "secret", "generic", "s1", "--from-literal=v=kms-marker-one-83c1")
	if got := secretValue(t, s, "default", "s1", "v"); got != "kms-marker-one-83c1" {
		t.Fatalf("s1 reads %q", got)
	}
	metrics := s.MustKubectl(t, "get", "--raw", "/metrics")
	for _, want := range []string{
		`apiserver_envelope_encryption_key_id_hash_total{apiserver_id_hash="sha256:`,
		`provider_name="testkms",transformation_type="to_storage"}`,
		`apiserver_storage_transformation_operations_total{resource="secrets",status="OK",transformation_type="to_storage",transformer_prefix="k8s:enc:kms:v2:testkms:"}`,
		`apiserver_envelope_encryption_kms_operations_latency_seconds_count{grpc_status_code="OK",method_name="/v2.KeyManagementService/Encrypt",provider_name="testkms"}`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %s:\n%s", want, grepLines(metrics, "encryption"))
		}
	}
	s.Stop()
	db := rawStore(t, s)
	if v := storedValue(t, db, "/registry/secrets/default/s1"); !bytes.HasPrefix(v, []byte("k8s:enc:kms:v2:testkms:")) || bytes.Contains(v, []byte("kms-marker-one")) || !bytes.Contains(v, []byte("key-1")) {
		t.Fatalf("s1 is stored as %q", v)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	t.Run("key rotation", func(t *testing.T) {
		plugin.setControl(t, kmstest.Control{KeyID: ptr.To("key-2")})
		s.Restart()
		s.MustKubectl(t, "create", "secret", "generic", "s2", "--from-literal=v=two")
		all := s.MustKubectl(t, "get", "secrets", "-A", "-o", "json")
		replace := s.KubectlCommand(context.Background(), t, "replace", "-f", "-")
		replace.Stdin = strings.NewReader(all)
		if out, err := replace.CombinedOutput(); err != nil {
			t.Fatalf("kubectl replace: %v\n%s", err, out)
		}
		s.Stop()
		db := rawStore(t, s)
		for _, name := range []string{"s1", "s2"} {
			v := storedValue(t, db, "/registry/secrets/default/"+name)
			if !bytes.HasPrefix(v, []byte("k8s:enc:kms:v2:testkms:")) || !bytes.Contains(v, []byte("key-2")) || bytes.Contains(v, []byte("key-1")) {
				t.Errorf("%s after rotation: %q", name, v)
			}
		}
		_ = db.Close()
		s.Restart()
		if got := secretValue(t, s, "default", "s1", "v"); got != "kms-marker-one-83c1" {
			t.Errorf("s1 reads %q after rotation", got)
		}
	})

	t.Run("plugin errors", func(t *testing.T) {
		plugin.setControl(t, kmstest.Control{KeyID: ptr.To("key-2"), FailDecrypt: ptr.To(true), FailStatus: ptr.To(true)})
		// A fresh server has no DEK cached: reading needs Decrypt.
		s.Stop()
		s.Restart()
		_, stderr, err := s.Kubectl(t, "get", "secret", "s1")
		if err == nil || !strings.Contains(stderr, `unable to transform key "/registry/secrets/default/s1"`) || !strings.Contains(stderr, "k8s:enc:kms:v2:testkms:") {
			t.Errorf("read with a failing Decrypt: err=%v\n%s", err, stderr)
		}
		s.MustKubectl(t, "create", "configmap", "still-served")
		_, stderr, err = s.Kubectl(t, "get", "--raw", "/readyz/kms-providers")
		if err == nil || !strings.Contains(stderr, `kmsv2 provider \"testkms\" is not healthy`) {
			t.Errorf("/readyz/kms-providers with a failing Status: err=%v\n%s", err, stderr)
		}
		plugin.setControl(t, kmstest.Control{KeyID: ptr.To("key-2")})
		eventually(t, "reads after the plugin recovers", func() error {
			_, stderr, err := s.Kubectl(t, "get", "secret", "s1")
			if err != nil {
				return fmt.Errorf("%v: %s", err, stderr)
			}
			return nil
		})
	})

	t.Run("slow plugin", func(t *testing.T) {
		// The plugin answers in an hour: only its 1 s timeout ends the
		// Decrypt, and the read fails with the deadline in the transform
		// error.
		plugin.setControl(t, kmstest.Control{KeyID: ptr.To("key-2"), Delay: ptr.To(kmstest.Duration(time.Hour))})
		s.Stop()
		s.Restart()
		_, stderr, err := s.Kubectl(t, "get", "secret", "s2")
		if err == nil || !strings.Contains(stderr, `unable to transform key "/registry/secrets/default/s2"`) ||
			!strings.Contains(stderr, "DeadlineExceeded") && !strings.Contains(stderr, "deadline exceeded") {
			t.Errorf("read through a slow plugin: err=%v\n%s", err, stderr)
		}
		plugin.setControl(t, kmstest.Control{KeyID: ptr.To("key-2")})
	})

	t.Run("plugin down", func(t *testing.T) {
		eventually(t, "reads after the plugin is fast again", func() error {
			_, stderr, err := s.Kubectl(t, "get", "secret", "s2")
			if err != nil {
				return fmt.Errorf("%v: %s", err, stderr)
			}
			return nil
		})
		plugin.stop()
		// A healthy answer is reused for 20 s, as in kube-apiserver.
		deadline := time.Now().Add(40 * time.Second)
		for {
			if _, _, err := s.Kubectl(t, "get", "--raw", "/readyz/kms-providers"); err != nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("/readyz/kms-providers still ok 40 s after the plugin stopped")
			}
			time.Sleep(500 * time.Millisecond)
		}
		// Values whose DEK is cached still read; the server stays up.
		if got := secretValue(t, s, "default", "s2", "v"); got != "two" {
			t.Errorf("s2 reads %q with the plugin down", got)
		}
		s.MustKubectl(t, "get", "--raw", "/livez")
		// A server that starts without its plugin cannot write secrets, and says why.
		s.Stop()
		s.Restart()
		_, stderr, err := s.Kubectl(t, "create", "secret", "generic", "s3", "--from-literal=v=three")
		if err == nil || !strings.Contains(stderr, "testkms") {
			t.Errorf("write with the plugin down: err=%v\n%s", err, stderr)
		}
		plugin.start(t)
		eventually(t, "writes after the plugin is back", func() error {
			_, stderr, err := s.Kubectl(t, "create", "secret", "generic", "s3", "--from-literal=v=three")
			if err != nil {
				return fmt.Errorf("%v: %s", err, stderr)
			}
			return nil
		})
		eventually(t, "/readyz/kms-providers ok", func() error {
			_, stderr, err := s.Kubectl(t, "get", "--raw", "/readyz/kms-providers")
			if err != nil {
				return fmt.Errorf("%v: %s", err, stderr)
			}
			return nil
		})
	})
}

// TestEncryptionKMSReload moves a running server from aescbc to a KMS v2
// plugin by editing its configuration, and refuses a configuration whose
// plugin does not answer, keeping the last good one.
func TestEncryptionKMSReload(t *testing.T) {
	t.Parallel()
	dir, err := os.MkdirTemp("", "kms")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	plugin := startKMSPlugin(t, dir)
	aescbc := "  - aescbc:\n      keys:\n      - name: key1\n        secret: " + aesKey(1, 32) + "\n"
	kms := func(name, socket string) string {
		return fmt.Sprintf("  - kms:\n      apiVersion: v2\n      name: %s\n      endpoint: unix://%s\n      timeout: 1s\n", name, socket)
	}
	path := encryptionConfig(t, filepath.Join(dir, "enc.yaml"), "- resources: [secrets]\n  providers:\n"+aescbc)
	s := harness.Start(t, "--encryption-provider-config", path, "--encryption-provider-config-automatic-reload")
	s.MustKubectl(t, "create", "secret", "generic", "s1", "--from-literal=v=one")
	reloads := func(status string) error {
		metrics := s.MustKubectl(t, "get", "--raw", "/metrics")
		if !strings.Contains(metrics, `status="`+status+`"} 1`) || !strings.Contains(metrics, "apiserver_encryption_config_controller_automatic_reloads_total") {
			return fmt.Errorf("no %s reload yet:\n%s", status, grepLines(metrics, "encryption_config_controller_automatic_reloads_total"))
		}
		return nil
	}

	encryptionConfig(t, path, "- resources: [secrets]\n  providers:\n"+kms("testkms", plugin.socket)+aescbc)
	eventually(t, "reload to KMS applied", func() error { return reloads("success") })
	s.MustKubectl(t, "create", "secret", "generic", "s2", "--from-literal=v=two")
	all := s.MustKubectl(t, "get", "secrets", "-o", "json")
	replace := s.KubectlCommand(context.Background(), t, "replace", "-f", "-")
	replace.Stdin = strings.NewReader(all)
	if out, err := replace.CombinedOutput(); err != nil {
		t.Fatalf("kubectl replace: %v\n%s", err, out)
	}

	// A plugin that is not there: the reload is refused and the last good
	// configuration keeps writing through testkms.
	encryptionConfig(t, path, "- resources: [secrets]\n  providers:\n"+kms("absent", filepath.Join(dir, "absent.sock"))+kms("testkms", plugin.socket)+aescbc)
	eventually(t, "reload to an absent plugin refused", func() error { return reloads("failure") })
	s.MustKubectl(t, "create", "secret", "generic", "s3", "--from-literal=v=three")
	s.MustKubectl(t, "get", "--raw", "/readyz/kms-providers")
	if !strings.Contains(s.Output(), `absent`) {
		t.Errorf("the server did not log why the reload failed:\n%s", s.Output())
	}
	for name, v := range map[string]string{"s1": "one", "s2": "two", "s3": "three"} {
		if got := secretValue(t, s, "default", name, "v"); got != v {
			t.Errorf("%s reads %q", name, got)
		}
	}
	s.Stop()
	db := rawStore(t, s)
	for _, name := range []string{"s1", "s2", "s3"} {
		if v := storedValue(t, db, "/registry/secrets/default/"+name); !bytes.HasPrefix(v, []byte("k8s:enc:kms:v2:testkms:")) {
			t.Errorf("%s is stored as %q", name, v[:min(40, len(v))])
		}
	}
}

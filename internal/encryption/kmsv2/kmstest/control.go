package kmstest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// Control is the control file. Absent fields leave the plugin's own
// settings alone.
type Control struct {
	KeyID       *string   `json:"keyID,omitempty"`
	Delay       *Duration `json:"delay,omitempty"`
	FailEncrypt *bool     `json:"failEncrypt,omitempty"`
	FailDecrypt *bool     `json:"failDecrypt,omitempty"`
	FailStatus  *bool     `json:"failStatus,omitempty"`
	Healthz     *string   `json:"healthz,omitempty"`
	Version     *string   `json:"version,omitempty"`
}

// Duration is a delay written as a Go duration ("250ms") or as a number
// of milliseconds.
type Duration time.Duration

// MarshalJSON writes the Go duration form.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// UnmarshalJSON reads either form.
func (d *Duration) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		v, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("delay: %w", err)
		}
		*d = Duration(v)
		return nil
	}
	ms, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return fmt.Errorf("delay: want a duration string or milliseconds: %w", err)
	}
	*d = Duration(ms * float64(time.Millisecond))
	return nil
}

// readControl reads a control file; a missing file is no control.
func readControl(path string) (*Control, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var c Control
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("control file %s: %w", path, err)
	}
	return &c, nil
}

// WriteControl replaces the control file at path in one rename, so that a
// running plugin never reads half of it.
func WriteControl(path string, c Control) error {
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".kmstest-control-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

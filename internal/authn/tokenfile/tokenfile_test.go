package tokenfile

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type result struct {
	Name, UID string
	Groups    []string
}

func TestParse(t *testing.T) {
	tests := []struct {
		name     string
		file     string
		want     map[string]*result // token -> user; nil user: not recognised
		wantErr  string
		wantLogs []string
	}{
		{
			name: "documented example",
			file: "token,user,uid,\"group1,group2,group3\"\n",
			want: map[string]*result{"token": {Name: "user", UID: "uid", Groups: []string{"group1", "group2", "group3"}}},
		},
		{
			name: "three columns, no groups",
			file: "abc,alice,1\n",
			want: map[string]*result{"abc": {Name: "alice", UID: "1"}, "ab": nil, "abcd": nil, "": nil},
		},
		{
			name: "single group, extra columns ignored",
			file: "t1,bob,2,dev,whatever,else\n",
			want: map[string]*result{"t1": {Name: "bob", UID: "2", Groups: []string{"dev"}}},
		},
		{
			name: "empty group column gives no group",
			file: "t1,bob,2,\n",
			want: map[string]*result{"t1": {Name: "bob", UID: "2"}},
		},
		{
			name: "empty uid and name are kept as written",
			file: "t1,,\n",
			want: map[string]*result{"t1": {}},
		},
		{
			name:     "empty token skipped with a warning",
			file:     ",nobody,0\nt2,carol,3\n",
			want:     map[string]*result{"t2": {Name: "carol", UID: "3"}},
			wantLogs: []string{"empty token has been found in token file 'tokens.csv', record number '1'"},
		},
		{
			name:     "duplicate token warns, the later record wins",
			file:     "t,first,1\nt,second,2\n",
			want:     map[string]*result{"t": {Name: "second", UID: "2"}},
			wantLogs: []string{"duplicate token has been found in token file 'tokens.csv', record number '2'"},
		},
		{
			name:    "fewer than three columns",
			file:    "t,only-two\n",
			wantErr: "token file 'tokens.csv' must have at least 3 columns (token, user name, user uid), found 2",
		},
		{
			name:    "bad quoting",
			file:    "t,\"unterminated,1\n",
			wantErr: "token file 'tokens.csv': parse error on line 1",
		},
		{
			name: "empty file",
			file: "",
			want: map[string]*result{"x": nil},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			logger := slog.New(slog.NewTextHandler(&logs, nil))
			a, err := Parse(strings.NewReader(tt.file), "tokens.csv", logger)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for token, want := range tt.want {
				u, ok, err := a.AuthenticateToken(context.Background(), token)
				if err != nil {
					t.Fatal(err)
				}
				if want == nil {
					if ok {
						t.Errorf("%q recognised as %v", token, u)
					}
					continue
				}
				if !ok {
					t.Fatalf("%q not recognised", token)
				}
				got := &result{Name: u.GetName(), UID: u.GetUID(), Groups: u.GetGroups()}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%q (-want +got):\n%s", token, diff)
				}
			}
			for _, l := range tt.wantLogs {
				if !strings.Contains(logs.String(), l) {
					t.Errorf("log lacks %q:\n%s", l, logs.String())
				}
			}
			for token := range tt.want {
				if token != "" && strings.Contains(logs.String(), token+",") {
					t.Errorf("a token was logged:\n%s", logs.String())
				}
			}
		})
	}
}

func TestTooFewColumnsSentinel(t *testing.T) {
	_, err := Parse(strings.NewReader("a,b\n"), "f", slog.New(slog.DiscardHandler))
	if !errors.Is(err, ErrTooFewColumns) {
		t.Fatal(err)
	}
}

func TestLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokens.csv")
	if err := os.WriteFile(path, []byte("s3cret,admin,0,system:masters\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := Load(path, nil)
	if err != nil || a.Len() != 1 {
		t.Fatal(err)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing"), nil); err == nil {
		t.Fatal("missing file loaded")
	}
}

func FuzzParse(f *testing.F) {
	f.Add("token,user,uid,\"group1,group2\"\n")
	f.Add(",x,y\nt,u,1\nt,v,2\n")
	f.Add("\"a\"\"b\",c,d\r\n")
	f.Add("a,b\n")
	f.Fuzz(func(t *testing.T, file string) {
		a, err := Parse(strings.NewReader(file), "f", slog.New(slog.DiscardHandler))
		if err != nil {
			return
		}
		for _, line := range strings.Split(file, "\n") {
			tok, _, _ := strings.Cut(line, ",")
			_, _, _ = a.AuthenticateToken(context.Background(), tok)
		}
	})
}

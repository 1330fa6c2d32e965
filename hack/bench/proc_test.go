package main

import (
	"errors"
	"testing"
	"time"
)

func TestParseStatCPU(t *testing.T) {
	for _, tc := range []struct {
		name string
		stat string
		want time.Duration
		err  bool
	}{
		{
			name: "plain",
			stat: "1234 (portcullis) S 1 1234 1234 0 -1 4194560 5000 0 0 0 250 50 0 0 20 0 12 0 100 1000000 2000 18446744073709551615",
			want: 3 * time.Second,
		},
		{
			name: "command with spaces and parentheses",
			stat: "99 (a) b (c) R 1 99 99 0 -1 0 0 0 0 0 7 3 0 0 20 0 1 0 5 100 10 0",
			want: 100 * time.Millisecond,
		},
		{name: "no command", stat: "1 portcullis S", err: true},
		{name: "short", stat: "1 (x) S 1 2 3", err: true},
		{name: "not a number", stat: "1 (x) S 1 1 1 0 -1 0 0 0 0 0 x 3 0", err: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseStatCPU([]byte(tc.stat))
			if tc.err {
				if !errors.Is(err, errProcFormat) {
					t.Fatalf("err = %v, want errProcFormat", err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("= %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

func TestParseStatusRSS(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status string
		want   int64
		err    bool
	}{
		{name: "present", status: "Name:\tportcullis\nVmPeak:\t 900 kB\nVmRSS:\t   61234 kB\nThreads:\t12\n", want: 61234},
		{name: "missing", status: "Name:\tzombie\nState:\tZ\n", err: true},
		{name: "other unit", status: "VmRSS:\t 12 MB\n", err: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseStatusRSS([]byte(tc.status))
			if tc.err {
				if !errors.Is(err, errProcFormat) {
					t.Fatalf("err = %v, want errProcFormat", err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("= %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

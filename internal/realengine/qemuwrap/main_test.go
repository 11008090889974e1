package main

import (
	"encoding/binary"
	"slices"
	"strings"
	"testing"
)

func TestPayload(t *testing.T) {
	withLength := func(prog, payload string, n uint64) []byte {
		b := []byte(prog + payload)
		return binary.LittleEndian.AppendUint64(b, n)
	}
	tests := []struct {
		name    string
		file    []byte
		want    string
		wantErr bool
	}{
		{"payload after the program", withLength("ELF...", "QEMU", 4), "QEMU", false},
		{"the whole file before the length", withLength("", "QEMU", 4), "QEMU", false},
		{"no length", []byte("short"), "", true},
		{"zero length", withLength("ELF...", "", 0), "", true},
		{"length past the start", withLength("E", "Q", 9), "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Payload(tt.file)
			if (err != nil) != tt.wantErr || string(got) != tt.want {
				t.Errorf("Payload = %q, %v; want %q (error %v)", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	exists := func(paths ...string) func(string) bool {
		return func(p string) bool { return slices.Contains(paths, p) }
	}
	tests := []struct {
		name, prog, path string
		executable       func(string) bool
		want             string
	}{
		{"found on PATH, first match wins", "python", "/usr/local/bin:/usr/bin", exists("/usr/bin/python", "/usr/local/bin/python"), "/usr/local/bin/python"},
		{"later directory", "sh", "/usr/local/bin:/bin", exists("/bin/sh"), "/bin/sh"},
		{"a path is kept", "/bin/sh", "/usr/bin", exists("/usr/bin/sh"), "/bin/sh"},
		{"a relative path is kept", "./run", "/bin", exists("/bin/run"), "./run"},
		{"not on PATH", "python", "/bin", exists(), "python"},
		{"empty PATH entry is the working directory", "tool", ":/bin", exists("tool"), "tool"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Resolve(tt.prog, tt.path, tt.executable); got != tt.want {
				t.Errorf("Resolve(%q, %q) = %q, want %q", tt.prog, tt.path, got, tt.want)
			}
		})
	}
}

func TestArgv(t *testing.T) {
	tests := []struct {
		name, head string
		want       []string
	}{
		{"a binary runs as itself", "\x7fELF\x02\x01", []string{"/usr/local/bin/python", "-c", "x"}},
		{"a script runs its interpreter", "#!/bin/sh\ncat /x\n", []string{"/bin/sh", "/usr/local/bin/python", "-c", "x"}},
		{"the interpreter's one argument", "#! /usr/bin/env  python3 -u\n", []string{"/usr/bin/env", "python3 -u", "/usr/local/bin/python", "-c", "x"}},
		{"a tab after the interpreter", "#!/bin/sh\t-e\n", []string{"/bin/sh", "-e", "/usr/local/bin/python", "-c", "x"}},
		{"no interpreter named", "#!\n", []string{"/usr/local/bin/python", "-c", "x"}},
		{"an empty file", "", []string{"/usr/local/bin/python", "-c", "x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Argv([]byte(tt.head), "/usr/local/bin/python", []string{"-c", "x"})
			if !slices.Equal(got, tt.want) {
				t.Errorf("Argv = %q, want %q", got, tt.want)
			}
		})
	}
}

func FuzzArgv(f *testing.F) {
	for _, s := range []string{"#!/bin/sh\n", "#! /usr/bin/env python3\n", "\x7fELF", "#!", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, head []byte) {
		got := Argv(head, "/prog", []string{"a"})
		// The program and its arguments always end the command line, whatever the head.
		if len(got) < 2 || got[len(got)-2] != "/prog" || got[len(got)-1] != "a" {
			t.Fatalf("Argv(%q) = %q", head, got)
		}
		if len(got) > 4 || strings.Contains(got[0], "\n") {
			t.Fatalf("Argv(%q) = %q", head, got)
		}
	})
}

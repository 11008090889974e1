package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

func TestServesUntilStdinCloses(t *testing.T) {
	dir := t.TempDir()
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- run([]string{"--dir", dir}, stdinR, stdoutW) }()

	line, err := bufio.NewReader(stdoutR).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	var addr struct{ URL, TrustedRoot string }
	if err := json.Unmarshal([]byte(line), &addr); err != nil {
		t.Fatalf("first line %q: %v", line, err)
	}
	if !strings.HasPrefix(addr.URL, "http://127.0.0.1:") {
		t.Errorf("url %q", addr.URL)
	}
	if b, err := os.ReadFile(addr.TrustedRoot); err != nil || !strings.Contains(string(b), "certificateAuthorities") {
		t.Errorf("trusted root %s: %v", addr.TrustedRoot, err)
	}
	resp, err := http.Get(addr.URL + "/test/counts")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("counts: status %d", resp.StatusCode)
	}

	stdinW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("still serving after stdin closed")
	}
}

func TestRefusesBadFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no dir", nil, "--dir is required"},
		{"not loopback", []string{"--dir", t.TempDir(), "--listen", "0.0.0.0:0"}, "loopback"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := run(tt.args, strings.NewReader(""), io.Discard)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

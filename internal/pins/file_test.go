package pins

import (
	"reflect"
	"strings"
	"testing"
)

const digest = "sha256:1111111111111111111111111111111111111111111111111111111111111111"

func TestParseFile(t *testing.T) {
	tests := []struct {
		name, content string
		want          []string
		err           string
	}{
		{"empty", "# nothing pinned here\n\n", nil, ""},
		{"the forms Dependabot keeps", "FROM docker.io/library/python:3.14-slim@" + digest + " AS python-3.14\n" +
			"from ghcr.io/astral-sh/uv:0.9.20@" + digest + " as UV\r\n" +
			"FROM --platform=linux/amd64 localhost:5000/trivy:0.74.0@" + digest + " AS trivy\n",
			[]string{"python-3.14=docker.io/library/python:3.14-slim@" + digest, "uv=ghcr.io/astral-sh/uv:0.9.20@" + digest,
				"trivy=localhost:5000/trivy:0.74.0@" + digest}, ""},
		{"no stage name", "FROM python:3.14-slim@" + digest + "\n", nil, "pins.Dockerfile:1: FROM python:3.14-slim@" + digest + " names no pin"},
		{"a tag alone", "FROM python:3.14-slim AS python-3.14\n", nil, ":1: python:3.14-slim is not pinned by digest"},
		{"Shipyard's own Go", "FROM golang:1.26@" + digest + " AS go\n", nil, `"go" is not a pin a repository sets`},
		{"unknown name", "FROM x/y:1@" + digest + " AS node\n", nil, `"node" is not a pin`},
		{"python 2", "FROM python:2@" + digest + " AS python-2.7\n", nil, `"python-2.7" is not a pin`},
		{"twice", "FROM a/k3s:1@" + digest + " AS k3s\nFROM a/k3s:2@" + digest + " AS k3s\n", nil, ":2: k3s is pinned already, on line 1"},
		{"another instruction", "RUN echo\n", nil, `:1: "RUN echo" is not a FROM line`},
		{"every problem at once", "RUN x\nFROM y AS uv\n", nil, ":2: y is not pinned"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseFile("pins.Dockerfile", []byte(tt.content))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("ParseFile = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// The file a repository starts from gives back Shipyard's pins; a line Dependabot moves
// to a newer tag and digest becomes the pin, and every other stays.
func TestFileRoundTrip(t *testing.T) {
	def := DefaultPins()
	overrides, err := ParseFile(File, FileOf(def))
	if err != nil {
		t.Fatal(err)
	}
	back, err := def.WithOverrides(overrides)
	if err != nil || !reflect.DeepEqual(back, def) {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
	if len(overrides) != len(def.Python)+3 {
		t.Errorf("%d pins in the file, want every Python, uv, trivy and k3s", len(overrides))
	}
	bumped := "docker.io/library/python:3.13.9-slim-bookworm@" + digest
	file := strings.Replace(string(FileOf(def)), def.Python["3.13"], bumped, 1)
	file += "FROM docker.io/library/python:3.14-slim-bookworm@" + digest + " AS python-3.14\n"
	overrides, err = ParseFile(File, []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	p, err := DefaultPins().WithOverrides(overrides)
	if err != nil || p.Python["3.13"] != bumped || p.Python["3.14"] == "" || p.Trivy != def.Trivy {
		t.Errorf("pins %+v, %v", p, err)
	}
}

// A tree's pins are layered: the defaults, then its pins file's, then --pin, which wins.
func TestForTree(t *testing.T) {
	def := DefaultPins()
	file := "docker.io/aquasec/trivy:0.70.0@" + digest
	flag := "mirror.example/aquasec/trivy:0.70.0@" + digest
	uv := "mirror.example/astral-sh/uv:0.9.20@" + digest
	tests := []struct {
		name             string
		repository, pins []string
		trivy, uv, err   string
	}{
		{"the defaults", nil, nil, def.Trivy, def.UV, ""},
		{"the file's", []string{"trivy=" + file}, nil, file, def.UV, ""},
		{"--pin over the file", []string{"trivy=" + file}, []string{"trivy=" + flag}, flag, def.UV, ""},
		{"--pin beside the file", []string{"trivy=" + file}, []string{"uv=" + uv}, file, uv, ""},
		{"a bad --pin", []string{"trivy=" + file}, []string{"trivy=trivy:latest"}, "", "", "not pinned by digest"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ForTree(tt.repository, tt.pins)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || p.Trivy != tt.trivy || p.UV != tt.uv || p.Go != def.Go {
				t.Errorf("ForTree = trivy %s, uv %s, go %s, %v", p.Trivy, p.UV, p.Go, err)
			}
		})
	}
}

func FuzzParseFile(f *testing.F) {
	f.Add(string(FileOf(DefaultPins())))
	f.Add("FROM a AS b\nRUN x\n# c\n")
	f.Fuzz(func(t *testing.T, s string) {
		overrides, err := ParseFile("f", []byte(s))
		if err != nil {
			return
		}
		if _, err := DefaultPins().WithOverrides(overrides); err != nil {
			t.Fatalf("ParseFile accepted %q, which --pin refuses: %v", overrides, err)
		}
	})
}

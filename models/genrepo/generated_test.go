package genrepo

import (
	"archive/tar"
	"bytes"
	"strings"
	"testing"

	"dagger/shipyard/internal/github"
	"dagger/shipyard/models/modelenv"
)

// archiveOf writes a tar archive of headers, each regular file's content its Linkname
// field's place taken by body.
func archiveOf(t testing.TB, members ...member) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, m := range members {
		h := m.h
		if h.Typeflag == tar.TypeReg {
			h.Size = int64(len(m.body))
		}
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := tw.Write([]byte(m.body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

type member struct {
	h    tar.Header
	body string
}

func reg(name string, mode int64, body string) member {
	return member{tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: mode}, body}
}

func TestReadArchive(t *testing.T) {
	lim := modelenv.TreeLimits{MaxFiles: 10, MaxBytes: 100}
	tests := []struct {
		name    string
		members []member
		want    []github.TreeFile
		err     string
	}{
		{"files, modes, links", []member{
			{tar.Header{Name: "./", Typeflag: tar.TypeDir, Mode: 0o755}, ""},
			reg("./run.sh", 0o755, "#!/bin/sh\n"),
			reg("./data.bin", 0o600, "\xff\x00"),
			{tar.Header{Name: "./docs/", Typeflag: tar.TypeDir}, ""},
			{tar.Header{Name: "./docs/link", Typeflag: tar.TypeSymlink, Linkname: "../run.sh"}, ""},
			{tar.Header{Name: "./copy.sh", Typeflag: tar.TypeLink, Linkname: "./run.sh"}, ""},
		}, []github.TreeFile{
			{Path: "copy.sh", Mode: github.ModeExecutable, Content: []byte("#!/bin/sh\n")},
			{Path: "data.bin", Mode: github.ModeFile, Content: []byte("\xff\x00")},
			{Path: "docs/link", Mode: github.ModeSymlink, Content: []byte("../run.sh")},
			{Path: "run.sh", Mode: github.ModeExecutable, Content: []byte("#!/bin/sh\n")},
		}, ""},
		{"out of the repository", []member{reg("./../etc/passwd", 0o644, "x")}, nil, "outside the repository"},
		{"absolute", []member{reg("/etc/passwd", 0o644, "x")}, nil, "outside the repository"},
		{"git folder", []member{reg("./.git/config", 0o644, "x")}, nil, "Git's own folder"},
		{"twice", []member{reg("./a", 0o644, "x"), reg("a", 0o644, "y")}, nil, "a: twice"},
		{"a device", []member{{tar.Header{Name: "./null", Typeflag: tar.TypeChar}, ""}}, nil, "null: neither a file"},
		{"a hard link to nothing", []member{{tar.Header{Name: "./b", Typeflag: tar.TypeLink, Linkname: "./a"}, ""}}, nil, "not a file before it"},
		{"too large", []member{reg("./a", 0o644, strings.Repeat("x", 60)), reg("./b", 0o644, strings.Repeat("x", 60))}, nil, "b: the files exceed 100 bytes"},
		{"too many", func() []member {
			var ms []member
			for _, c := range "abcdefghijk" {
				ms = append(ms, reg("./"+string(c), 0o644, ""))
			}
			return ms
		}(), nil, "more than 10 files"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadArchive(bytes.NewReader(archiveOf(t, tt.members...)), lim)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d files %+v, want %d", len(got), got, len(tt.want))
			}
			for i := range got {
				if got[i].Path != tt.want[i].Path || got[i].Mode != tt.want[i].Mode || !bytes.Equal(got[i].Content, tt.want[i].Content) {
					t.Errorf("file %d = %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
	if _, err := ReadArchive(strings.NewReader("not a tar archive, but long enough to be read as a header block"), lim); err == nil {
		t.Error("garbage read as an archive")
	}
}

func FuzzReadArchive(f *testing.F) {
	f.Add(archiveOf(f, reg("./a.sh", 0o755, "x"), member{tar.Header{Name: "./l", Typeflag: tar.TypeSymlink, Linkname: "a.sh"}, ""}))
	f.Add([]byte("garbage"))
	f.Fuzz(func(t *testing.T, data []byte) {
		files, err := ReadArchive(bytes.NewReader(data), modelenv.TreeLimits{MaxFiles: 50, MaxBytes: 1 << 16})
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, f := range files {
			if f.Path == "" || strings.HasPrefix(f.Path, "/") || strings.Contains("/"+f.Path+"/", "/../") || seen[f.Path] {
				t.Fatalf("bad path %q in %+v", f.Path, files)
			}
			seen[f.Path] = true
			switch f.Mode {
			case github.ModeFile, github.ModeExecutable, github.ModeSymlink:
			default:
				t.Fatalf("mode %q", f.Mode)
			}
		}
	})
}

func TestReadArchiveRefusesAnEmptyTree(t *testing.T) {
	data := archiveOf(t, member{tar.Header{Name: "./", Typeflag: tar.TypeDir}, ""})
	if _, err := ReadArchive(bytes.NewReader(data), modelenv.DefaultTreeLimits()); err == nil || !strings.Contains(err.Error(), "holds no file") {
		t.Errorf("err = %v", err)
	}
}

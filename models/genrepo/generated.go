package genrepo

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"

	"dagger.io/dagger"

	"dagger/shipyard/internal/github"
	"dagger/shipyard/models/modelenv"
)

// A generated repository is pushed as it is: executable bits, symlinks and bytes that are
// not UTF-8 included, which the Dagger API's text reads (File.contents, Directory.entries)
// cannot carry. So the repository is archived with tar in a container, the archive leaves
// as base64 text in bounded pieces, and ReadArchive turns it into the files to push.

// ArchiveDir is where the archive's base64 pieces are written, as ArchivePiece-NNNN.
const (
	ArchiveDir   = "/out/tree"
	ArchivePiece = "tree.tar.b64."
)

// archivePieceBytes bounds one piece read through File.contents, well under the 128 MiB
// that Dagger v0.21.8 returns at most (engineutil.MaxFileContentsSize).
const archivePieceBytes = 32 << 20

// ArchiveCommand returns the command that archives /repo reproducibly (names sorted,
// owners and times fixed, so the same tree gives the same exec output) and splits its
// base64 text into pieces.
func ArchiveCommand() []string {
	return []string{"sh", "-c", "mkdir -p " + ArchiveDir +
		" && tar -C /repo --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -cf /tmp/tree.tar ." +
		" && base64 -w 0 /tmp/tree.tar | split -a 4 -d -b " + fmt.Sprint(archivePieceBytes) + " - " + ArchiveDir + "/" + ArchivePiece}
}

// ReadGenerated reads a generated repository's files with their modes, without the paths
// of NotRepository, through one archive exec in the pinned Python image (GNU tar).
func ReadGenerated(ctx context.Context, e modelenv.Env, dir *dagger.Directory, lim modelenv.TreeLimits) ([]github.TreeFile, error) {
	image, err := e.Pins.PythonImage(e.Python)
	if err != nil {
		return nil, err
	}
	out := e.Client.Container().From(image).
		WithDirectory("/repo", dir.Filter(dagger.DirectoryFilterOpts{Exclude: modelenv.NotRepository()})).
		WithExec(ArchiveCommand()).
		Directory(ArchiveDir)
	pieces, err := out.Entries(ctx)
	if err != nil {
		return nil, fmt.Errorf("archiving the generated repository: %w", err)
	}
	sort.Strings(pieces)
	if most := base64.StdEncoding.EncodedLen(int(lim.MaxBytes))/archivePieceBytes + 2; len(pieces) > most {
		return nil, fmt.Errorf("the generated repository's archive has %d pieces of %d bytes: more than its %d bytes of files allow", len(pieces), archivePieceBytes, lim.MaxBytes)
	}
	var text strings.Builder
	for _, p := range pieces {
		if !strings.HasPrefix(p, ArchivePiece) {
			return nil, fmt.Errorf("archiving the generated repository: unexpected file %s", p)
		}
		s, err := out.File(p).Contents(ctx)
		if err != nil {
			return nil, fmt.Errorf("reading the generated repository's archive: %w", err)
		}
		text.WriteString(s)
	}
	archive, err := base64.StdEncoding.DecodeString(strings.TrimSpace(text.String()))
	if err != nil {
		return nil, fmt.Errorf("reading the generated repository's archive: its base64 text does not decode: %w", err)
	}
	return ReadArchive(bytes.NewReader(archive), lim)
}

// ReadArchive reads a tar archive of a repository into the files to push, sorted by path:
// regular files (ModeExecutable when the owner may execute, else ModeFile), symlinks
// (ModeSymlink, their target as content) and hard links (their target's bytes). Folders
// are implied by their files. Anything else (devices, FIFOs), a path out of the
// repository, a path twice, or more than lim allows is an error naming the path.
func ReadArchive(r io.Reader, lim modelenv.TreeLimits) ([]github.TreeFile, error) {
	tr := tar.NewReader(r)
	byPath := map[string]int{}
	var files []github.TreeFile
	var total int64
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading the archive: %w", err)
		}
		p, err := repoPath(h.Name)
		if err != nil {
			return nil, err
		}
		if h.Typeflag == tar.TypeDir {
			continue
		}
		if p == "" {
			return nil, fmt.Errorf("%q: a file without a name", h.Name)
		}
		var f github.TreeFile
		switch h.Typeflag {
		case tar.TypeReg:
			if h.Size > lim.MaxBytes-total {
				return nil, fmt.Errorf("%s: the files exceed %d bytes together", p, lim.MaxBytes)
			}
			data, err := io.ReadAll(io.LimitReader(tr, h.Size))
			if err != nil {
				return nil, fmt.Errorf("%s: reading the archive: %w", p, err)
			}
			f = github.TreeFile{Path: p, Mode: github.ModeFile, Content: data}
			if h.Mode&0o100 != 0 {
				f.Mode = github.ModeExecutable
			}
		case tar.TypeSymlink:
			f = github.TreeFile{Path: p, Mode: github.ModeSymlink, Content: []byte(h.Linkname)}
		case tar.TypeLink:
			target, err := repoPath(h.Linkname)
			if err != nil {
				return nil, err
			}
			i, ok := byPath[target]
			if !ok || files[i].Mode == github.ModeSymlink {
				return nil, fmt.Errorf("%s: a hard link to %s, which is not a file before it in the archive", p, h.Linkname)
			}
			f = github.TreeFile{Path: p, Mode: files[i].Mode, Content: files[i].Content}
		default:
			return nil, fmt.Errorf("%s: neither a file, a folder nor a symlink (tar type %q); a repository holds none", p, h.Typeflag)
		}
		if _, dup := byPath[p]; dup {
			return nil, fmt.Errorf("%s: twice in the archive", p)
		}
		total += int64(len(f.Content))
		if total > lim.MaxBytes {
			return nil, fmt.Errorf("%s: the files exceed %d bytes together", p, lim.MaxBytes)
		}
		if len(files) >= lim.MaxFiles {
			return nil, fmt.Errorf("more than %d files; is build output or an environment in the repository?", lim.MaxFiles)
		}
		byPath[p] = len(files)
		files = append(files, f)
	}
	if len(files) == 0 {
		// Pushing it would delete every file of the model repository.
		return nil, errors.New("the archive holds no file: the generation wrote nothing")
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, nil
}

// repoPath cleans an archive member's name ("./a/b") into a repository path, refusing one
// that leaves the repository or names Git's own folder.
func repoPath(name string) (string, error) {
	p := strings.TrimPrefix(path.Clean("/"+name), "/")
	if strings.HasPrefix(name, "/") || strings.Contains("/"+name+"/", "/../") {
		return "", fmt.Errorf("%q: a path outside the repository", name)
	}
	for part := range strings.SplitSeq(p, "/") {
		if part == ".git" {
			return "", fmt.Errorf("%q: Git's own folder is not part of the tree", name)
		}
	}
	return p, nil
}

package gitserve

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"dagger/shipyard/internal/demoworld/githubsim"
)

// Handler serves repos over git's smart HTTP protocol at /<owner>/<name>.git (and without
// .git, as GitHub does): GET info/refs?service=git-upload-pack and POST git-upload-pack.
// Only fetching is served. Every commit served must have been made by Commit: one whose
// SHA is not its git object ID is refused with the reason, never served under another ID.
func Handler(repos ...*githubsim.Repo) http.Handler {
	byPath := map[string]*githubsim.Repo{}
	for _, r := range repos {
		byPath["/"+r.FullName()] = r
	}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var repo *githubsim.Repo
		var op string
		for p, r := range byPath {
			for _, base := range []string{p + ".git/", p + "/"} {
				if rest, ok := strings.CutPrefix(req.URL.Path, base); ok {
					repo, op = r, rest
				}
			}
		}
		switch {
		case repo == nil:
			http.Error(w, "Repository not found.", http.StatusNotFound)
		case op == "info/refs" && req.Method == http.MethodGet:
			if req.URL.Query().Get("service") != "git-upload-pack" {
				http.Error(w, "only git-upload-pack (fetch) is served", http.StatusForbidden)
				return
			}
			advertise(w, repo)
		case op == "git-upload-pack" && req.Method == http.MethodPost:
			uploadPack(w, req, repo)
		default:
			http.Error(w, "not served: "+req.Method+" "+op, http.StatusNotFound)
		}
	})
}

// history is a repository's refs and every object their commits reach.
type history struct {
	refs    map[string]string // full ref name → commit
	head    string            // the default branch's ref, when it exists
	commits map[string]commitInfo
}

type commitInfo struct {
	parents []string
	objects map[string]object // the commit and its tree's objects
}

// load reads repo's refs and the commits they reach, each rebuilt as a git object.
func load(repo *githubsim.Repo) (history, error) {
	h := history{refs: repo.Refs(), commits: map[string]commitInfo{}}
	if head := "refs/heads/" + repo.DefaultBranch(); h.refs[head] != "" {
		h.head = head
	}
	stack := slices.Collect(maps.Values(h.refs))
	for len(stack) > 0 {
		sha := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if _, done := h.commits[sha]; done {
			continue
		}
		parents := repo.Parents(sha)
		objs := map[string]object{}
		if id := encodeCommit(repo.Files(sha), repo.Modes(sha), parents, repo.Message(sha), objs); id != sha {
			return history{}, fmt.Errorf("%s: commit %s is not a git commit (rebuilt, it is %s): make it with gitserve.Commit", repo.FullName(), sha, id)
		}
		h.commits[sha] = commitInfo{parents: parents, objects: objs}
		stack = append(stack, parents...)
	}
	return h, nil
}

// capabilities are what this server offers a fetch: shallow fetches and wanting any commit
// a ref reaches by its SHA (which Dagger's git API does), and no side band: the pack
// follows the negotiation as is.
const capabilities = "shallow allow-tip-sha1-in-want allow-reachable-sha1-in-want agent=shipyard-gitserve"

// advertise answers info/refs: the service line, then HEAD and each ref, the first line
// carrying the capabilities.
func advertise(w http.ResponseWriter, repo *githubsim.Repo) {
	h, err := load(repo)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if len(h.refs) == 0 {
		http.Error(w, "the repository is empty", http.StatusNotFound)
		return
	}
	var b bytes.Buffer
	pkt(&b, "# service=git-upload-pack\n")
	b.WriteString("0000")
	caps := capabilities
	type line struct{ sha, name string }
	var lines []line
	if h.head != "" {
		caps += " symref=HEAD:" + h.head
		lines = append(lines, line{h.refs[h.head], "HEAD"})
	}
	for _, name := range slices.Sorted(maps.Keys(h.refs)) {
		lines = append(lines, line{h.refs[name], name})
	}
	for i, l := range lines {
		if i == 0 {
			pkt(&b, l.sha+" "+l.name+"\x00"+caps+"\n")
			continue
		}
		pkt(&b, l.sha+" "+l.name+"\n")
	}
	b.WriteString("0000")
	w.Header().Set("Content-Type", "application/x-git-upload-pack-advertisement")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(b.Bytes())
}

// request is what a fetch asks for in one round.
type request struct {
	wants []string
	depth int
	haves int
	done  bool
}

// uploadPack answers one round of a stateless fetch: the shallow boundary when the fetch
// is shallow and, once the client says done, NAK (no common commit is ever acknowledged:
// the whole history asked for is sent) and the pack. A round without done is the shallow
// boundary alone, which is all git reads of it, and NAK when the client sent what it has.
func uploadPack(w http.ResponseWriter, req *http.Request, repo *githubsim.Repo) {
	body := io.Reader(req.Body)
	if req.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(req.Body)
		if err != nil {
			http.Error(w, "request body: "+err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	r, err := readRequest(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	h, err := load(repo)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/x-git-upload-pack-result")
	w.Header().Set("Cache-Control", "no-cache")
	var b bytes.Buffer
	for _, want := range r.wants {
		if _, ok := h.commits[want]; !ok {
			pkt(&b, "ERR upload-pack: not our ref "+want+"\n")
			_, _ = w.Write(b.Bytes())
			return
		}
	}
	included, shallow := h.reach(r.wants, r.depth)
	if r.depth > 0 {
		for _, sha := range shallow {
			pkt(&b, "shallow "+sha+"\n")
		}
		b.WriteString("0000")
	}
	if r.done || r.haves > 0 {
		pkt(&b, "NAK\n")
	}
	if r.done {
		objs := map[string]object{}
		for _, sha := range included {
			maps.Copy(objs, h.commits[sha].objects)
		}
		writePack(&b, objs)
	}
	_, _ = w.Write(b.Bytes())
}

// reach lists the commits a fetch of wants gets, depth commits deep (0: all), and the
// commits at the boundary whose parents are left out.
func (h history) reach(wants []string, depth int) (included, shallow []string) {
	level := map[string]int{}
	queue := slices.Clone(wants)
	for _, w := range wants {
		level[w] = 1
	}
	for len(queue) > 0 {
		sha := queue[0]
		queue = queue[1:]
		included = append(included, sha)
		parents := h.commits[sha].parents
		if depth > 0 && level[sha] >= depth {
			if len(parents) > 0 {
				shallow = append(shallow, sha)
			}
			continue
		}
		for _, p := range parents {
			if _, seen := level[p]; !seen {
				level[p] = level[sha] + 1
				queue = append(queue, p)
			}
		}
	}
	return included, shallow
}

// readRequest reads the pkt-lines of one upload-pack request.
func readRequest(body io.Reader) (request, error) {
	var r request
	br := bufio.NewReader(body)
	for {
		line, flush, err := readPkt(br)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return request{}, err
		}
		if flush {
			continue
		}
		line = strings.TrimSuffix(line, "\n")
		switch verb, arg, _ := strings.Cut(line, " "); verb {
		case "want":
			sha, _, _ := strings.Cut(arg, " ") // the first want carries the client's capabilities
			r.wants = append(r.wants, sha)
		case "deepen":
			if r.depth, err = strconv.Atoi(arg); err != nil || r.depth < 1 {
				return request{}, fmt.Errorf("upload-pack: deepen %q: want a positive number", arg)
			}
		case "done":
			r.done = true
		case "have":
			r.haves++
		case "shallow":
			// The client's shallow commits change nothing: everything asked for is sent.
		default:
			return request{}, fmt.Errorf("upload-pack: %q is not served (only want, deepen, have, shallow, done)", verb)
		}
	}
	if len(r.wants) == 0 {
		return request{}, fmt.Errorf("upload-pack: the request wants nothing")
	}
	return r, nil
}

// readPkt reads one pkt-line: its payload, or flush for 0000.
func readPkt(br *bufio.Reader) (string, bool, error) {
	var size [4]byte
	if _, err := io.ReadFull(br, size[:]); err != nil {
		return "", false, err
	}
	n, err := strconv.ParseUint(string(size[:]), 16, 16)
	if err != nil {
		return "", false, fmt.Errorf("upload-pack: pkt-line length %q: %w", size, err)
	}
	if n == 0 {
		return "", true, nil
	}
	if n < 4 {
		return "", false, fmt.Errorf("upload-pack: pkt-line length %d", n)
	}
	payload := make([]byte, n-4)
	if _, err := io.ReadFull(br, payload); err != nil {
		return "", false, fmt.Errorf("upload-pack: pkt-line: %w", err)
	}
	return string(payload), false, nil
}

// pkt writes one pkt-line.
func pkt(b *bytes.Buffer, payload string) {
	fmt.Fprintf(b, "%04x%s", len(payload)+4, payload)
}

// writePack writes objs as a version 2 pack file without deltas, ending in the SHA-1 of
// everything before it.
func writePack(out *bytes.Buffer, objs map[string]object) {
	var p bytes.Buffer
	p.WriteString("PACK")
	_ = binary.Write(&p, binary.BigEndian, uint32(2))
	_ = binary.Write(&p, binary.BigEndian, uint32(len(objs)))
	for _, id := range slices.Sorted(maps.Keys(objs)) {
		o := objs[id]
		// The header: type and size, 4 bits of size in the first byte, then 7 bits a byte.
		size := len(o.data)
		c := byte(o.typ<<4) | byte(size&0x0f)
		size >>= 4
		for size > 0 {
			p.WriteByte(c | 0x80)
			c = byte(size & 0x7f)
			size >>= 7
		}
		p.WriteByte(c)
		zw := zlib.NewWriter(&p)
		_, _ = zw.Write(o.data)
		_ = zw.Close()
	}
	sum := sha1.Sum(p.Bytes())
	p.Write(sum[:])
	out.Write(p.Bytes())
}

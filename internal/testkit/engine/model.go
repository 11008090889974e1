package engine

import (
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// States are what the double knows of an object, computed by folding its chain call by
// call. They are immutable: each step copies what it changes.

type kv struct{ k, v string }

type ctrState struct {
	platform     string
	image        string
	build        *Build
	env          []kv
	secretEnv    map[string]string // variable → secret name
	secretMounts map[string]string // path → secret name
	workdir      string
	user         string
	entrypoint   []string
	defaultArgs  []string
	labels       []kv
	mounts       map[string]Mount
	fs           *vfs // root filesystem, paths relative to "/"
	services     map[string]*chain
	ports        []int
	lastExec     *chain // the chain ending with the last withExec of this container
}

func newCtr(complete bool) *ctrState {
	return &ctrState{
		secretEnv: map[string]string{}, secretMounts: map[string]string{},
		mounts: map[string]Mount{}, fs: emptyFS(complete), services: map[string]*chain{},
	}
}

func (s *ctrState) clone() *ctrState {
	c := *s
	c.env = slices.Clone(s.env)
	c.labels = slices.Clone(s.labels)
	c.secretEnv = maps.Clone(s.secretEnv)
	c.secretMounts = maps.Clone(s.secretMounts)
	c.mounts = maps.Clone(s.mounts)
	c.services = maps.Clone(s.services)
	c.ports = slices.Clone(s.ports)
	return &c
}

func (s *ctrState) envMap() map[string]string {
	m := make(map[string]string, len(s.env))
	for _, e := range s.env {
		m[e.k] = e.v
	}
	return m
}

func (s *ctrState) expand(v string) string {
	env := s.envMap()
	return os.Expand(v, func(k string) string { return env[k] })
}

// abs resolves a container path against the working directory.
func (s *ctrState) abs(p string) string {
	if path.IsAbs(p) {
		return path.Clean(p)
	}
	wd := s.workdir
	if wd == "" {
		wd = "/"
	}
	return path.Join(wd, p)
}

func setKV(list []kv, k, v string) []kv {
	for i := range list {
		if list[i].k == k {
			list[i].v = v
			return list
		}
	}
	return append(list, kv{k, v})
}

func deleteKV(list []kv, k string) []kv {
	return slices.DeleteFunc(list, func(e kv) bool { return e.k == k })
}

type dirState struct {
	fs   *vfs
	base string // where this folder sits in its root object, for rules ("/out", "")
}

func (d *dirState) at(p string) string {
	if d.base == "" {
		return rel(p)
	}
	return path.Join(d.base, p)
}

type fileState struct {
	name string
	path string // where the file sits in its root object, for rules
	file vfile
	// where an unknown file was produced, when it came in through a mounted folder
	originPath, originChain string
}

type secretState struct{ name, uri string }

type serviceState struct {
	ctr      *ctrState
	ctrChain *chain
	args     []string
	hostname string
}

// gitRepoState is a remote repository (Query.git) or, with local set, a directory's own
// history (Directory.asGit).
type gitRepoState struct {
	url   string
	local *vfs
}

type gitRefState struct {
	url, kind, name string
	local           *vfs
	// full and sha are what a checkout's own history (local) resolved name to.
	full, sha string
}

type cacheState struct{ key string }

type envVarState struct{ name, value string }

// opaque stands for objects the double does not model; their leaves give defaults.
type opaque struct{}

// fold computes the state of an object. Results are memoised per chain: prefixes are
// shared by many chains and host folders are listed once per engine, like the engine's
// session snapshot of a host path.
func (e *Engine) fold(c *chain) (any, error) {
	if len(c.Calls) == 0 {
		return opaque{}, nil
	}
	key := c.key()
	e.mu.Lock()
	st, ok := e.folds[key]
	e.mu.Unlock()
	if ok {
		return st, nil
	}
	prev, err := e.fold(c.prefix(len(c.Calls) - 1))
	if err != nil {
		return nil, err
	}
	st, err = e.step(prev, c)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	e.folds[key] = st
	e.mu.Unlock()
	return st, nil
}

// step applies the last call of c to the state of its receiver.
func (e *Engine) step(prev any, c *chain) (any, error) {
	k := c.Calls[len(c.Calls)-1]
	switch s := prev.(type) {
	case *ctrState:
		return e.stepContainer(s, k, c)
	case *dirState:
		return e.stepDirectory(s, k, c)
	case *fileState:
		return stepFile(s, k, c.Type), nil
	case *serviceState:
		if k.Field == "withHostname" {
			n := *s
			n.hostname = k.str("hostname")
			return &n, nil
		}
		if k.On == c.Type {
			return s, nil
		}
	case *gitRepoState:
		switch k.Field {
		case "tag", "branch", "ref":
			ref := &gitRefState{url: s.url, kind: k.Field, name: k.str("name"), local: s.local}
			if s.local == nil {
				return ref, nil
			}
			// A checkout's own history resolves the name now, as the engine's ref field does
			// (core/schema/git.go): branch and tag qualify it first.
			target := ref.name
			switch k.Field {
			case "branch":
				target = "refs/heads/" + strings.TrimPrefix(target, "refs/heads/")
			case "tag":
				target = "refs/tags/" + strings.TrimPrefix(target, "refs/tags/")
			}
			refs, err := localRefs(s.local)
			if err != nil {
				return nil, err
			}
			if ref.full, ref.sha, err = lookupLocalRef(refs, target); err != nil {
				return nil, err
			}
			return ref, nil
		case "commit":
			return &gitRefState{url: s.url, kind: "commit", name: k.str("id"), local: s.local}, nil
		case "head", "latestVersion":
			return &gitRefState{url: s.url, kind: k.Field, local: s.local}, nil
		}
	case *gitRefState:
		switch k.Field {
		case "tree":
			return &dirState{fs: emptyFS(false).withOrigin("", c.prefix(len(c.Calls)-1).String())}, nil
		case "commonAncestor":
			return s, nil
		}
	}
	if k.On == "Query" {
		return e.stepQuery(k)
	}
	if k.On == "Host" {
		return e.stepHost(k)
	}
	return fresh(c.Type), nil
}

// fresh is the state of an object the double cannot derive: nothing is known of it.
func fresh(typ string) any {
	switch typ {
	case "Container":
		return newCtr(false)
	case "Directory":
		return &dirState{fs: emptyFS(false)}
	case "File":
		return &fileState{file: vfile{unknown: true}}
	}
	return opaque{}
}

func (e *Engine) stepQuery(k call) (any, error) {
	switch k.Field {
	case "container":
		s := newCtr(true)
		s.platform = k.str("platform")
		return s, nil
	case "directory":
		return &dirState{fs: emptyFS(true)}, nil
	case "file":
		data := k.str("contents")
		return &fileState{name: k.str("name"), path: k.str("name"), file: vfile{data: &data}}, nil
	case "cacheVolume":
		return &cacheState{key: k.str("key")}, nil
	case "setSecret":
		return &secretState{name: k.str("name")}, nil
	case "secret":
		return &secretState{name: k.str("uri"), uri: k.str("uri")}, nil
	case "git":
		return &gitRepoState{url: k.str("url")}, nil
	case "http":
		return &fileState{name: path.Base(k.str("url")), file: vfile{unknown: true}}, nil
	}
	return opaque{}, nil
}

func (e *Engine) stepHost(k call) (any, error) {
	switch k.Field {
	case "directory":
		fs, err := e.hostDir(k.str("path"), k.strings("include"), k.strings("exclude"))
		if err != nil {
			return nil, err
		}
		return &dirState{fs: fs}, nil
	case "file":
		p := e.hostPath(k.str("path"))
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("host file %s: %w", k.str("path"), err)
		}
		if st.IsDir() {
			return nil, fmt.Errorf("host file %s: is a directory", k.str("path"))
		}
		return &fileState{name: filepath.Base(p), path: k.str("path"), file: vfile{host: p}}, nil
	}
	return opaque{}, nil
}

func (e *Engine) hostPath(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(e.hostWD, filepath.FromSlash(p))
}

func (e *Engine) hostDir(p string, include, exclude []string) (*vfs, error) {
	key := fmt.Sprintf("%q %q %q", p, include, exclude)
	e.mu.Lock()
	fs, ok := e.hostDirs[key]
	e.mu.Unlock()
	if ok {
		return fs, nil
	}
	fs, err := readHostDir(e.hostPath(p), include, exclude)
	if err != nil {
		return nil, fmt.Errorf("host directory %s: %w", p, err)
	}
	e.mu.Lock()
	e.hostDirs[key] = fs
	e.mu.Unlock()
	return fs, nil
}

// source folds an argument object to the state type the call needs.
func sourceAs[T any](e *Engine, c *chain) (T, error) {
	var zero T
	if c == nil {
		return zero, nil
	}
	st, err := e.fold(c)
	if err != nil {
		return zero, err
	}
	v, ok := st.(T)
	if !ok {
		return zero, fmt.Errorf("engine double: %s is not the expected object", c.Type)
	}
	return v, nil
}

// stepContainer applies one Container call: a call that leaves the container answers its
// product, the others change a copy of the container's config or filesystem.
func (e *Engine) stepContainer(s *ctrState, k call, c *chain) (any, error) {
	if out, ok, err := e.containerProduct(s, k, c); ok || err != nil {
		return out, err
	}
	n := s.clone()
	handled, err := e.configureContainer(s, n, k)
	if !handled && err == nil {
		handled, err = e.changeContainerFS(s, n, k, c)
	}
	if err != nil {
		return nil, err
	}
	if !handled && c.Type != "Container" {
		return fresh(c.Type), nil
	}
	return n, nil
}

// containerProduct answers the calls that return another object made from the container.
func (e *Engine) containerProduct(s *ctrState, k call, c *chain) (any, bool, error) {
	switch k.Field {
	case "directory":
		return s.directoryAt(s.abs(k.str("path")), c), true, nil
	case "rootfs":
		return &dirState{fs: s.fs, base: "/"}, true, nil
	case "file":
		p := s.abs(k.str("path"))
		f, err := fileAt(s.fs, p, p)
		return f, true, err
	case "asService":
		args := k.strings("args")
		if len(args) == 0 {
			args = slices.Concat(s.entrypoint, s.defaultArgs)
		}
		return &serviceState{ctr: s, ctrChain: c.prefix(len(c.Calls) - 1), args: args}, true, nil
	case "asTarball":
		return &fileState{name: "image.tar", file: vfile{unknown: true}}, true, nil
	case "envVariables":
		if k.Nth >= 1 && k.Nth <= len(s.env) {
			v := s.env[k.Nth-1]
			return &envVarState{name: v.k, value: v.v}, true, nil
		}
		return opaque{}, true, nil
	}
	return nil, false, nil
}

// directoryAt is the folder at p of the container that the chain c leaves.
func (s *ctrState) directoryAt(p string, c *chain) *dirState {
	sub := s.fs.sub(p)
	if !sub.complete {
		// Rules written for this container keep answering wherever the folder goes;
		// origins of folders mounted into it come later and win.
		own := emptyFS(false).withOrigin(p, c.prefix(len(c.Calls)-1).String())
		out := sub.clone()
		out.origins = append(own.origins, sub.origins...)
		sub = out
	}
	return &dirState{fs: sub, base: p}
}

// configureContainer applies the calls that change the image config of n, a copy of s:
// environment, secrets, user, entrypoint, labels, services and ports.
func (e *Engine) configureContainer(s, n *ctrState, k call) (bool, error) {
	switch k.Field {
	case "withEnvVariable":
		v := k.str("value")
		if k.boolean("expand") {
			v = s.expand(v)
		}
		n.env = setKV(n.env, k.str("name"), v)
	case "withoutEnvVariable":
		n.env = deleteKV(n.env, k.str("name"))
	case "withSecretVariable":
		sec, err := sourceAs[*secretState](e, k.object("secret"))
		if err != nil {
			return true, err
		}
		n.secretEnv[k.str("name")] = sec.name
	case "withoutSecretVariable":
		delete(n.secretEnv, k.str("name"))
	case "withMountedSecret":
		sec, err := sourceAs[*secretState](e, k.object("source"))
		if err != nil {
			return true, err
		}
		n.secretMounts[s.abs(k.str("path"))] = sec.name
	case "withWorkdir":
		n.workdir = s.abs(k.str("path"))
	case "withoutWorkdir":
		n.workdir = ""
	case "withUser":
		n.user = k.str("name")
	case "withoutUser":
		n.user = ""
	case "withEntrypoint":
		n.entrypoint = k.strings("args")
		if !k.boolean("keepDefaultArgs") {
			n.defaultArgs = nil
		}
	case "withoutEntrypoint":
		n.entrypoint = nil
		if !k.boolean("keepDefaultArgs") {
			n.defaultArgs = nil
		}
	case "withDefaultArgs":
		n.defaultArgs = k.strings("args")
	case "withoutDefaultArgs":
		n.defaultArgs = nil
	case "withLabel":
		n.labels = setKV(n.labels, k.str("name"), k.str("value"))
	case "withoutLabel":
		n.labels = deleteKV(n.labels, k.str("name"))
	case "withServiceBinding":
		n.services[k.str("alias")] = k.object("service")
	case "withExposedPort":
		if p, ok := k.integer("port"); ok && !slices.Contains(n.ports, p) {
			n.ports = append(n.ports, p)
		}
	case "withoutExposedPort":
		if p, ok := k.integer("port"); ok {
			n.ports = slices.DeleteFunc(n.ports, func(q int) bool { return q == p })
		}
	default:
		return false, nil
	}
	return true, nil
}

// changeContainerFS applies the calls that change the filesystem of n, a copy of s: a new
// root, an exec, and what is mounted, copied or removed.
func (e *Engine) changeContainerFS(s, n *ctrState, k call, c *chain) (bool, error) {
	switch k.Field {
	case "from":
		n.image, n.build = k.str("address"), nil
		n.env, n.labels, n.workdir, n.user, n.entrypoint, n.defaultArgs = nil, nil, "", "", nil, nil
		n.fs, n.lastExec = emptyFS(false), nil
	case "withRootfs":
		d, err := sourceAs[*dirState](e, k.object("directory"))
		if err != nil {
			return true, err
		}
		n.image, n.build, n.fs = "", nil, d.fs
	case "import":
		n.image, n.build, n.fs = "", nil, emptyFS(false)
	case "withExec":
		n.lastExec = c
		n.fs = n.fs.incomplete()
	case "withoutMount":
		delete(n.mounts, s.abs(k.str("path")))
	case "withoutDirectory", "withoutFile":
		n.remove(s.abs(k.str("path")))
	case "withoutFiles":
		for _, p := range k.strings("paths") {
			n.remove(s.abs(p))
		}
	default:
		return e.addToContainer(s, n, k)
	}
	return true, nil
}

// addToContainer applies the calls that mount or copy a folder, a file or a cache into n.
func (e *Engine) addToContainer(s, n *ctrState, k call) (bool, error) {
	switch k.Field {
	case "withDirectory", "withMountedDirectory":
		src := k.object("source")
		d, err := sourceAs[*dirState](e, src)
		if err != nil {
			return true, err
		}
		p := s.abs(k.str("path"))
		n.mounts[p] = Mount{Path: p, Kind: k.Field, Source: src.String()}
		n.fs = n.fs.merge(p, d.fs, k.strings("include"), k.strings("exclude"))
	case "withMountedCache":
		cache, err := sourceAs[*cacheState](e, k.object("cache"))
		if err != nil {
			return true, err
		}
		p := s.abs(k.str("path"))
		m := Mount{Path: p, Kind: k.Field, Cache: cache.key}
		if src := k.object("source"); src != nil {
			m.Source = src.String()
		}
		n.mounts[p] = m
		n.fs = n.fs.without(p).withDir(p).incomplete()
	case "withMountedTemp":
		p := s.abs(k.str("path"))
		n.mounts[p] = Mount{Path: p, Kind: k.Field}
		n.fs = n.fs.without(p).withDir(p)
	case "withFile", "withMountedFile":
		src := k.object("source")
		f, err := sourceAs[*fileState](e, src)
		if err != nil {
			return true, err
		}
		p := s.abs(k.str("path"))
		n.mounts[p] = Mount{Path: p, Kind: k.Field, Source: src.String()}
		n.fs = n.fs.withFile(p, f.file)
	case "withFiles":
		dir := s.abs(k.str("path"))
		for _, src := range k.objects("sources") {
			f, err := sourceAs[*fileState](e, src)
			if err != nil {
				return true, err
			}
			p := path.Join(dir, f.name)
			n.mounts[p] = Mount{Path: p, Kind: k.Field, Source: src.String()}
			n.fs = n.fs.withFile(p, f.file)
		}
	case "withNewFile":
		p := s.abs(k.str("path"))
		data := k.str("contents")
		n.mounts[p] = Mount{Path: p, Kind: k.Field}
		n.fs = n.fs.withFile(p, vfile{data: &data})
	default:
		return false, nil
	}
	return true, nil
}

// remove deletes the path p and the mounts at or under it.
func (s *ctrState) remove(p string) {
	s.fs = s.fs.without(p)
	s.dropMounts(p)
}

func (s *ctrState) dropMounts(p string) {
	for m := range s.mounts {
		if within(rel(m), rel(p)) {
			delete(s.mounts, m)
		}
	}
}

// fileAt looks a file up; in a complete tree a missing file is the engine's error, in an
// incomplete one it may have been produced by an exec and reads as unknown.
func fileAt(fs *vfs, p, where string) (*fileState, error) {
	f, ok := fs.lookup(p)
	if !ok {
		if fs.complete || fs.isDir(p) {
			return nil, fmt.Errorf("%s: no such file or directory", where)
		}
		f = vfile{unknown: true}
	}
	fs2 := &fileState{name: path.Base(p), path: where, file: f}
	if f.unknown {
		fs2.originPath, fs2.originChain, _ = fs.originOf(p)
	}
	return fs2, nil
}

func (e *Engine) stepDirectory(s *dirState, k call, c *chain) (any, error) {
	typ := c.Type
	n := &dirState{fs: s.fs, base: s.base}
	switch k.Field {
	case "withNewFile":
		data := k.str("contents")
		n.fs = s.fs.withFile(k.str("path"), vfile{data: &data})
	case "withFile":
		f, err := sourceAs[*fileState](e, k.object("source"))
		if err != nil {
			return nil, err
		}
		n.fs = s.fs.withFile(k.str("path"), f.file)
	case "withFiles":
		for _, src := range k.objects("sources") {
			f, err := sourceAs[*fileState](e, src)
			if err != nil {
				return nil, err
			}
			n.fs = n.fs.withFile(path.Join(k.str("path"), f.name), f.file)
		}
	case "withDirectory":
		d, err := sourceAs[*dirState](e, k.object("source"))
		if err != nil {
			return nil, err
		}
		n.fs = s.fs.merge(k.str("path"), d.fs, k.strings("include"), k.strings("exclude"))
	case "withNewDirectory":
		n.fs = s.fs.withDir(k.str("path"))
	case "withoutFile", "withoutDirectory":
		n.fs = s.fs.without(k.str("path"))
	case "withoutFiles":
		n.fs = s.fs.without(k.strings("paths")...)
	case "filter":
		n.fs = s.fs.filter(k.strings("include"), k.strings("exclude"))
		if k.boolean("gitignore") {
			n.fs = e.gitignoreFilter(s, n.fs, c.String())
		}
	case "directory":
		p := k.str("path")
		if s.fs.complete && !s.fs.isDir(p) {
			return nil, fmt.Errorf("%s: no such file or directory", s.at(p))
		}
		return &dirState{fs: s.fs.sub(p), base: s.at(p)}, nil
	case "file":
		return fileAt(s.fs, k.str("path"), s.at(k.str("path")))
	case "dockerBuild":
		return e.stepDockerBuild(k)
	case "asGit":
		return &gitRepoState{local: s.fs}, nil
	case "withTimestamps", "chown", "withSymlink", "sync", "terminal":
		// Metadata only: the known contents stay valid.
	default:
		if typ != "Directory" {
			return fresh(typ), nil
		}
		// Unmodelled changes (diff, patches, changesets): what was known may be stale.
		n.fs = s.fs.incomplete()
	}
	return n, nil
}

func (e *Engine) stepDockerBuild(k call) (any, error) {
	b := &Build{
		Dockerfile: k.str("dockerfile"),
		Target:     k.str("target"),
		Platform:   k.str("platform"),
		BuildArgs:  map[string]string{},
	}
	if b.Dockerfile == "" {
		b.Dockerfile = "Dockerfile"
	}
	v, _ := k.arg("buildArgs")
	list, _ := v.([]any)
	for _, item := range list {
		m, _ := item.(map[string]any)
		name, _ := m["name"].(string)
		value, _ := m["value"].(string)
		b.BuildArgs[name] = value
	}
	for _, src := range k.objects("secrets") {
		sec, err := sourceAs[*secretState](e, src)
		if err != nil {
			return nil, err
		}
		b.Secrets = append(b.Secrets, sec.name)
	}
	slices.Sort(b.Secrets)
	s := newCtr(false)
	s.build, s.platform = b, b.Platform
	return s, nil
}

func stepFile(s *fileState, k call, typ string) any {
	n := *s
	switch k.Field {
	case "withName":
		n.name = k.str("name")
	case "withReplaced":
		if s.file.data != nil || s.file.host != "" {
			data, _, err := s.file.contents()
			if err == nil {
				search, repl := k.str("search"), k.str("replacement")
				if k.boolean("all") {
					data = strings.ReplaceAll(data, search, repl)
				} else {
					data = strings.Replace(data, search, repl, 1)
				}
				n.file = vfile{data: &data}
			}
		}
	case "withTimestamps", "chown":
	default:
		if typ != "File" {
			return fresh(typ)
		}
	}
	return &n
}

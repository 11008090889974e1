package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
)

// errNoCommand is the engine's answer to stdout and friends on a container without exec.
var errNoCommand = errors.New("no command has been set")

// leaf answers a scalar field. Everything but id evaluates the object first; then a
// FieldRule, the modelled fields, and finally the zero value of the field's type answer.
func (e *Engine) leaf(obj *chain, f *ast.Field, k call) (any, error) {
	if k.Field == "id" {
		return obj.id(), nil
	}
	if obj.Type == "Query" {
		switch k.Field {
		case "version":
			return e.cfg.version, nil
		case "defaultPlatform":
			return e.cfg.defaultPlatform, nil
		}
	}
	if _, err := e.evaluate(append([]*chain{obj}, k.deps()...)...); err != nil {
		return nil, err
	}
	if v, ok, err := e.matchField(obj.Type, k.Field, obj.String()); ok {
		return v, err
	}
	st, err := e.fold(obj)
	if err != nil {
		return nil, err
	}
	v, handled, err := e.modelled(obj, st, k)
	if handled || err != nil {
		return v, err
	}
	return e.zero(obj, f.Definition), nil
}

func (e *Engine) modelled(obj *chain, st any, k call) (any, bool, error) {
	switch s := st.(type) {
	case *ctrState:
		return e.containerLeaf(obj, s, k)
	case *dirState:
		return e.directoryLeaf(obj, s, k)
	case *fileState:
		return e.fileLeaf(obj, s, k)
	case *secretState:
		switch k.Field {
		case "name":
			return s.name, true, nil
		case "uri":
			return s.uri, true, nil
		case "plaintext":
			v, err := e.secretPlaintext(s)
			return v, true, err
		}
	case *serviceState:
		return e.serviceLeaf(obj, s, k)
	case *gitRefState:
		switch k.Field {
		case "commit":
			if s.kind == "commit" {
				return s.name, true, nil
			}
			if s.sha != "" {
				return s.sha, true, nil
			}
			if s.local != nil && s.kind == "head" {
				sha, err := localHead(s.local)
				return sha, true, err
			}
			return digestOf(s.url + "\x00" + s.kind + "\x00" + s.name)[:40], true, nil
		case "ref":
			if s.full != "" {
				return s.full, true, nil
			}
			switch s.kind {
			case "tag":
				return "refs/tags/" + s.name, true, nil
			case "branch":
				return "refs/heads/" + s.name, true, nil
			case "head":
				return "HEAD", true, nil
			}
			return s.name, true, nil
		}
	case *gitRepoState:
		if k.Field == "url" {
			return s.url, true, nil
		}
	case *envVarState:
		switch k.Field {
		case "name":
			return s.name, true, nil
		case "value":
			return s.value, true, nil
		}
	}
	if k.Field == "sync" {
		return obj.id(), true, nil
	}
	return nil, false, nil
}

func (e *Engine) secretPlaintext(s *secretState) (string, error) {
	if !e.cfg.allowPlaintext {
		return "", fmt.Errorf("engine double: Secret.plaintext of %q refused; pass secrets to containers, or use engine.AllowSecretPlaintext", s.name)
	}
	if s.uri != "" {
		return "", fmt.Errorf("engine double: secret %q comes from a provider the double does not resolve", s.uri)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.plaintext[s.name], nil
}

func (e *Engine) containerLeaf(obj *chain, s *ctrState, k call) (any, bool, error) {
	switch k.Field {
	case "stdout", "stderr", "combinedOutput", "exitCode":
		v, err := e.execOutput(s, k.Field)
		return v, true, err
	case "publish":
		return e.recordPublish(obj, s, k), true, nil
	case "export":
		if err := e.recordExport("Container", k.str("path"), obj); err != nil {
			return nil, true, err
		}
		return k.str("path"), true, nil
	case "exportImage":
		if err := e.recordExport("Image", k.str("name"), obj); err != nil {
			return nil, true, err
		}
		return nil, true, nil
	case "envVariable":
		return valueOf(s.env, k.str("name")), true, nil
	case "label":
		return valueOf(s.labels, k.str("name")), true, nil
	case "workdir":
		return s.workdir, true, nil
	case "user":
		return s.user, true, nil
	case "entrypoint":
		return nonNil(s.entrypoint), true, nil
	case "defaultArgs":
		return nonNil(s.defaultArgs), true, nil
	case "platform":
		if s.platform != "" {
			return s.platform, true, nil
		}
		return e.cfg.defaultPlatform, true, nil
	case "imageRef":
		if s.image == "" {
			return nil, true, errors.New("image reference can only be retrieved immediately after the 'Container.From' call")
		}
		return s.image + "@sha256:" + digestOf(s.image), true, nil
	case "mounts":
		return s.mountPaths(), true, nil
	case "exists":
		p := s.abs(k.str("path"))
		_, isFile := s.fs.lookup(p)
		return isFile || s.fs.isDir(p), true, nil
	case "up":
		e.recordService(obj, "", true, k.strings("args"))
		return nil, true, nil
	}
	return nil, false, nil
}

// execOutput answers field (stdout, stderr, combinedOutput or exitCode) from the result of
// the container's last exec.
func (e *Engine) execOutput(s *ctrState, field string) (any, error) {
	if s.lastExec == nil {
		return nil, errNoCommand
	}
	res, ok := e.execResultOf(s.lastExec)
	if !ok {
		return nil, fmt.Errorf("engine double: exec of %s has no result", s.lastExec)
	}
	switch field {
	case "stdout":
		return res.stdout, nil
	case "stderr":
		return res.stderr, nil
	case "combinedOutput":
		return res.stdout + res.stderr, nil
	}
	return res.exitCode, nil
}

// recordPublish records a push of the container (and its platform variants) and returns
// the reference: the address with a digest of what was pushed.
func (e *Engine) recordPublish(obj *chain, s *ctrState, k call) string {
	address := k.str("address")
	keys := []string{obj.key()}
	var names []string
	for _, v := range k.objects("platformVariants") {
		keys = append(keys, v.key())
		names = append(names, v.String())
	}
	ref := address + "@sha256:" + digestOf(strings.Join(keys, "\x00"))
	e.mu.Lock()
	e.rec.publishes = append(e.rec.publishes, Publish{
		Address: address, Ref: ref, Image: s.image, Build: cloneBuild(s.build), Variants: names, Chain: obj.String(),
	})
	e.mu.Unlock()
	return ref
}

// valueOf is the value of name in list, or null when the list does not have it.
func valueOf(list []kv, name string) any {
	for _, v := range list {
		if v.k == name {
			return v.v
		}
	}
	return nil
}

// mountPaths lists, sorted, the paths mounted into the container (not copied), secrets
// included.
func (s *ctrState) mountPaths() []string {
	var out []string
	for p, m := range s.mounts {
		if strings.HasPrefix(m.Kind, "withMounted") {
			out = append(out, p)
		}
	}
	for p := range s.secretMounts {
		out = append(out, p)
	}
	sort.Strings(out)
	return nonNil(out)
}

func (e *Engine) recordExport(kind, p string, obj *chain) error {
	e.mu.Lock()
	e.rec.exports = append(e.rec.exports, Export{Kind: kind, Path: p, Chain: obj.String()})
	e.mu.Unlock()
	return e.runExport(kind, p, obj.String())
}

func (e *Engine) directoryLeaf(obj *chain, s *dirState, k call) (any, bool, error) {
	switch k.Field {
	case "entries":
		p := k.str("path")
		if v, ok := e.matchEntries(s.at(p), rel(p) == "", obj.String()); ok {
			return nonNil(s.fs.present(p, v)), true, nil
		}
		if op, oc, ok := s.fs.originOf(p); ok {
			if v, ok := e.matchEntries(op, false, oc); ok {
				return nonNil(s.fs.present(p, v)), true, nil
			}
		}
		entries, ok := s.fs.entries(p)
		if !ok {
			if s.fs.complete {
				return nil, true, fmt.Errorf("%s: no such file or directory", s.at(p))
			}
			entries = []string{}
		}
		return entries, true, nil
	case "glob":
		return nonNil(s.fs.glob(k.str("pattern"))), true, nil
	case "exists":
		p := k.str("path")
		_, isFile := s.fs.lookup(p)
		return isFile || s.fs.isDir(p) || e.ruleKnows(s.fs, p), true, nil
	case "digest":
		// Like the engine, a folder whose every file is known is addressed by its content,
		// so two graphs that filter different sources to the same files agree.
		if d, ok := s.fs.contentDigest(); ok {
			return "sha256:" + d, true, nil
		}
		return "sha256:" + digestOf(obj.key()), true, nil
	case "name":
		if s.base == "" || s.base == "/" {
			return "/", true, nil
		}
		return path.Base(s.base) + "/", true, nil
	case "export":
		if err := e.recordExport("Directory", k.str("path"), obj); err != nil {
			return nil, true, err
		}
		return k.str("path"), true, nil
	}
	return nil, false, nil
}

// ruleKnows reports whether the rules give path p of a folder whose files the double does
// not hold (a git commit's tree): a file's contents or a folder's entries where p comes from.
func (e *Engine) ruleKnows(fs *vfs, p string) bool {
	op, oc, ok := fs.originOf(p)
	if !ok {
		return false
	}
	if _, ok := e.matchFile(op, oc); ok {
		return true
	}
	_, ok = e.matchEntries(op, false, oc)
	return ok
}

func (e *Engine) fileLeaf(obj *chain, s *fileState, k call) (any, bool, error) {
	switch k.Field {
	case "contents", "size", "digest":
		data, err := e.fileContents(obj, s)
		if err != nil {
			return nil, true, err
		}
		switch k.Field {
		case "size":
			return len(data), true, nil
		case "digest":
			return "sha256:" + digestOf(data), true, nil
		}
		return sliceLines(data, k), true, nil
	case "name":
		return s.name, true, nil
	case "export":
		if err := e.recordExport("File", k.str("path"), obj); err != nil {
			return nil, true, err
		}
		return k.str("path"), true, nil
	}
	return nil, false, nil
}

// fileContents answers a rule first, then what the graph wrote, then the host file; a file
// produced by an exec or an image without a rule reads as empty.
func (e *Engine) fileContents(obj *chain, s *fileState) (string, error) {
	if v, ok := e.matchFile(s.path, obj.String()); ok {
		return v, nil
	}
	if s.originChain != "" {
		if v, ok := e.matchFile(s.originPath, s.originChain); ok {
			return v, nil
		}
	}
	data, _, err := s.file.contents()
	return data, err
}

func sliceLines(data string, k call) string {
	offset, hasOffset := k.integer("offsetLines")
	limit, hasLimit := k.integer("limitLines")
	if !hasOffset && !hasLimit {
		return data
	}
	lines := strings.SplitAfter(data, "\n")
	if offset > len(lines) {
		offset = len(lines)
	}
	lines = lines[offset:]
	if hasLimit && limit < len(lines) {
		lines = lines[:limit]
	}
	return strings.Join(lines, "")
}

func (e *Engine) serviceLeaf(obj *chain, s *serviceState, k call) (any, bool, error) {
	hostname := s.hostname
	if hostname == "" {
		hostname = "svc-" + digestOf(obj.key())[:12]
	}
	switch k.Field {
	case "hostname":
		return hostname, true, nil
	case "endpoint":
		port, ok := k.integer("port")
		if !ok || port == 0 {
			if s.ctr == nil || len(s.ctr.ports) == 0 {
				return nil, true, errors.New("no ports exposed")
			}
			port = s.ctr.ports[0]
		}
		e.recordService(obj, "", true, nil)
		hp := hostname + ":" + strconv.Itoa(port)
		if scheme := k.str("scheme"); scheme != "" {
			return scheme + "://" + hp, true, nil
		}
		return hp, true, nil
	case "up":
		e.recordService(obj, "", true, nil)
		return nil, true, nil
	case "start":
		e.recordService(obj, "", true, nil)
		return obj.id(), true, nil
	case "stop", "sync":
		return obj.id(), true, nil
	case "ports":
		return []any{}, true, nil
	}
	return nil, false, nil
}

// zero is the answer for leaves the double does not model: the empty value of the type.
func (e *Engine) zero(obj *chain, def *ast.FieldDefinition) any {
	t := def.Type
	if t.Elem != nil {
		return []any{}
	}
	if !t.NonNull {
		return nil
	}
	switch t.NamedType {
	case "String":
		return ""
	case "Int":
		return 0
	case "Float":
		return 0.0
	case "Boolean":
		return false
	case "Platform":
		return e.cfg.defaultPlatform
	case "JSON":
		return "null"
	case "ID":
		return obj.id()
	}
	if d := e.schema.Types[t.NamedType]; d != nil && d.Kind == ast.Enum && len(d.EnumValues) > 0 {
		return d.EnumValues[0].Name
	}
	return nil
}

func digestOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return slices.Clone(s)
}

// localHead is the commit a directory's .git/HEAD names, as git resolves it: a detached
// commit, or a branch's ref as a loose file or in packed-refs.
func localHead(fs *vfs) (string, error) {
	read := func(p string) (string, bool, error) {
		f, ok := fs.lookup(p)
		if !ok {
			return "", false, nil
		}
		data, known, err := f.contents()
		return strings.TrimSpace(data), known, err
	}
	head, ok, err := read(".git/HEAD")
	if err != nil || !ok {
		return "", fmt.Errorf("engine double: Directory.asGit: no readable .git/HEAD in the directory (not a Git checkout): %v", err)
	}
	ref, symbolic := strings.CutPrefix(head, "ref: ")
	if !symbolic {
		return head, nil
	}
	if sha, ok, err := read(".git/" + ref); err != nil || ok {
		return sha, err
	}
	packed, _, err := read(".git/packed-refs")
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(packed, "\n") {
		if sha, name, ok := strings.Cut(strings.TrimSpace(line), " "); ok && name == ref {
			return sha, nil
		}
	}
	return "", fmt.Errorf("engine double: Directory.asGit: HEAD names %s, which the checkout does not have", ref)
}

// localRefs lists a checkout's refs as `git ls-remote` on it does, which is what Dagger's
// Directory.asGit looks names up in (core/git_local.go, Remote): HEAD when it resolves, then
// every ref under .git/refs, a loose file winning over packed-refs. A packed annotated tag's
// peeled line gives <tag>^{} as ls-remote prints it; a loose annotated tag is not peeled
// (the double does not read objects).
func localRefs(fs *vfs) (map[string]string, error) {
	if _, ok := fs.lookup(".git/HEAD"); !ok {
		return nil, fmt.Errorf("engine double: Directory.asGit: no readable .git/HEAD in the directory (not a Git checkout)")
	}
	refs := map[string]string{}
	if packed, ok := fs.lookup(".git/packed-refs"); ok {
		data, _, err := packed.contents()
		if err != nil {
			return nil, err
		}
		last := ""
		for _, line := range strings.Split(data, "\n") {
			line = strings.TrimSpace(line)
			if peeled, ok := strings.CutPrefix(line, "^"); ok && last != "" {
				refs[last+"^{}"] = peeled
				continue
			}
			if sha, name, ok := strings.Cut(line, " "); ok && !strings.HasPrefix(line, "#") {
				refs[name], last = sha, name
			}
		}
	}
	for p, f := range fs.files {
		if !strings.HasPrefix(p, ".git/refs/") {
			continue
		}
		data, _, err := f.contents()
		if err != nil {
			return nil, err
		}
		refs[strings.TrimPrefix(p, ".git/")] = strings.TrimSpace(data)
	}
	// A symbolic ref (refs/remotes/origin/HEAD after a clone) is listed at its target's commit.
	for name, v := range refs {
		if target, ok := strings.CutPrefix(v, "ref: "); ok {
			if sha, ok := refs[target]; ok && !strings.HasPrefix(sha, "ref: ") {
				refs[name] = sha
			} else {
				delete(refs, name)
			}
		}
	}
	if head, err := localHead(fs); err == nil {
		refs["HEAD"] = head // an unborn branch's HEAD is not listed
	}
	return refs, nil
}

// lookupLocalRef resolves target among refs as Dagger v0.21.8's Remote.Lookup does
// (util/gitutil/ls_remote.go): a full commit SHA stands for itself; else the ref named
// refs/<target> or target, then refs/heads/<target>, then refs/tags/<target> (its peeled
// commit when listed), a name that is a branch's or tag's full name counting as that
// branch or tag. It never tries refs/remotes/<target>, so "origin/main" is not found where
// git finds it. The error is the engine's own.
func lookupLocalRef(refs map[string]string, target string) (name, sha string, err error) {
	if isCommitSHA(target) {
		return "", target, nil
	}
	partial := "refs/" + strings.TrimPrefix(target, "refs/")
	head := "refs/heads/" + strings.TrimPrefix(target, "refs/heads/")
	tag := "refs/tags/" + strings.TrimPrefix(target, "refs/tags/")
	// Lookup's three tiers, in its order of preference. In the first, it keeps the last of
	// refs/<target> and target in ls-remote's order, which lists HEAD before the refs/
	// names; a name that is the branch's or the tag's belongs to their tier.
	tiers := [][]string{{partial, target}, {head}, {tag + "^{}", tag}}
	for i, tier := range tiers {
		for _, n := range tier {
			if sha, ok := refs[n]; ok && (i > 0 || n != head && n != tag) {
				return strings.TrimSuffix(n, "^{}"), sha, nil
			}
		}
	}
	return "", "", fmt.Errorf("repository does not contain ref %q", target)
}

// isCommitSHA is Dagger's gitutil.IsCommitSHA: 40 lowercase hexadecimal digits.
func isCommitSHA(s string) bool {
	if len(s) != 40 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

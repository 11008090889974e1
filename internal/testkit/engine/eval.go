package engine

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"dagger/shipyard/internal/fanout"
)

// Evaluation is what a leaf forces: every withExec and dockerBuild its object depends on
// runs once (per chain, like the engine's cache), independent ones concurrently, and what
// ran is recorded. Requesting an id evaluates nothing, as in the engine.

// node is one exec or build, shared by every chain that contains it.
type node struct {
	done  chan struct{}
	err   error
	res   execResult
	depth int // execs and builds on the longest dependency chain ending here
}

type execResult struct {
	stdout, stderr string
	exitCode       int
}

func isNode(k call) bool {
	return (k.On == "Container" && k.Field == "withExec") || (k.On == "Directory" && k.Field == "dockerBuild")
}

// evaluate runs everything the objects need, then folds them so a missing host folder or
// file fails here as it does in the engine. It returns the depth of what it ran: the
// number of execs and builds on the longest chain of dependencies, the critical path.
func (e *Engine) evaluate(objs ...*chain) (int, error) {
	tasks := make([]func() (int, error), len(objs))
	for i, c := range objs {
		tasks[i] = func() (int, error) {
			d, err := e.evalUpTo(c, len(c.Calls))
			if err != nil {
				return d, err
			}
			_, err = e.fold(c)
			return d, err
		}
	}
	return runAll(tasks)
}

// evalUpTo runs the first n calls of c: the last exec before n (which in turn needs all
// before it) alongside the argument objects of the calls after it.
func (e *Engine) evalUpTo(c *chain, n int) (int, error) {
	last := -1
	for i := n - 1; i >= 0; i-- {
		if isNode(c.Calls[i]) {
			last = i
			break
		}
	}
	var tasks []func() (int, error)
	if last >= 0 {
		p := c.prefix(last + 1)
		tasks = append(tasks, func() (int, error) { return e.evalNode(p) })
	}
	for i := last + 1; i < n; i++ {
		e.observe(c.prefix(i + 1))
		for _, d := range c.Calls[i].deps() {
			tasks = append(tasks, func() (int, error) { return e.evaluate(d) })
		}
	}
	return runAll(tasks)
}

// runAll runs tasks concurrently and returns the greatest depth and the error of the first
// task in order, so the error a query gets does not depend on scheduling.
func runAll(tasks []func() (int, error)) (int, error) {
	switch len(tasks) {
	case 0:
		return 0, nil
	case 1:
		return tasks[0]()
	}
	errs := make([]error, len(tasks))
	depths := make([]int, len(tasks))
	_ = fanout.Each(context.Background(), 0, len(tasks), func(_ context.Context, i int) error {
		depths[i], errs[i] = tasks[i]()
		return nil // errs keeps them, so the first in order is the one returned
	})
	for _, err := range errs {
		if err != nil {
			return slices.Max(depths), err
		}
	}
	return slices.Max(depths), nil
}

// evalNode runs one exec or build once. A failure is not cached, as in the engine: asking
// again runs it again, which lets a test fix a fault and re-run.
func (e *Engine) evalNode(p *chain) (int, error) {
	key := p.key()
	e.mu.Lock()
	e.rec.requests[key]++
	if nd, ok := e.nodes[key]; ok {
		e.mu.Unlock()
		<-nd.done
		return nd.depth, nd.err
	}
	nd := &node{done: make(chan struct{})}
	e.nodes[key] = nd
	e.mu.Unlock()

	k := p.Calls[len(p.Calls)-1]
	before, err := e.evalUpTo(p, len(p.Calls)-1)
	if err == nil {
		e.observe(p)
		deps := k.deps()
		tasks := make([]func() (int, error), len(deps))
		for i, d := range deps {
			tasks[i] = func() (int, error) { return e.evaluate(d) }
		}
		var depDepth int
		depDepth, err = runAll(tasks)
		before = max(before, depDepth)
	}
	nd.depth = before + 1
	if err == nil {
		if k.Field == "withExec" {
			nd.res, err = e.runExec(p, key)
		} else {
			err = e.runBuild(p, key)
		}
	}
	nd.err = err
	if err != nil {
		e.mu.Lock()
		if e.nodes[key] == nd {
			delete(e.nodes, key)
		}
		e.mu.Unlock()
	} else {
		e.mu.Lock()
		e.rec.criticalPath = max(e.rec.criticalPath, nd.depth)
		e.mu.Unlock()
	}
	close(nd.done)
	return nd.depth, err
}

func (e *Engine) sleep() {
	if e.cfg.latency <= 0 {
		return
	}
	t := time.NewTimer(e.cfg.latency)
	defer t.Stop()
	select {
	case <-t.C:
	case <-e.closed:
	}
}

func (e *Engine) runExec(p *chain, key string) (execResult, error) {
	s, err := sourceAs[*ctrState](e, p.prefix(len(p.Calls)-1))
	if err != nil {
		return execResult{}, err
	}
	k := p.Calls[len(p.Calls)-1]
	ex := execRecord(s, k, p)
	res, matched := e.matchExec(ex)
	unexpected := !matched && e.cfg.strictExecs
	if unexpected {
		// 127 is what a shell answers for a command it does not know.
		res = execResult{exitCode: 127, stderr: "engine double: no rule expects this exec"}
	}
	e.sleep()
	ex.ExitCode, ex.Stdout, ex.Stderr = res.exitCode, res.stdout, res.stderr
	e.mu.Lock()
	ex.Runs = 1
	if old := e.rec.execs[key]; old != nil {
		ex.Runs = old.Runs + 1
	}
	e.rec.execs[key] = &ex
	if unexpected && !e.seenExec[key] {
		e.seenExec[key] = true
		e.unexpected = append(e.unexpected, ex)
	}
	e.mu.Unlock()
	if unexpected {
		return res, &execFailure{cmd: ex.Args, exitCode: res.exitCode, stderr: res.stderr, unexpected: true, image: ex.Image}
	}
	if !expected(ex.Expect, res.exitCode) {
		return res, &execFailure{cmd: ex.Args, exitCode: res.exitCode, stdout: res.stdout, stderr: res.stderr}
	}
	return res, nil
}

func expected(expect string, code int) bool {
	switch expect {
	case "ANY":
		return true
	case "FAILURE":
		return code != 0
	}
	return code == 0
}

func execRecord(s *ctrState, k call, p *chain) Exec {
	args := k.strings("args")
	if k.boolean("expand") {
		for i := range args {
			args[i] = s.expand(args[i])
		}
	}
	if k.boolean("useEntrypoint") {
		args = slices.Concat(s.entrypoint, args)
	}
	ex := Exec{
		Args:     args,
		Workdir:  s.workdir,
		User:     s.user,
		Image:    s.image,
		Build:    cloneBuild(s.build),
		Platform: s.platform,
		Expect:   k.str("expect"),
		Stdin:    k.str("stdin"),
		Chain:    p.String(),
	}
	if ex.Expect == "" {
		ex.Expect = "SUCCESS"
	}
	for _, m := range s.mounts {
		ex.Mounts = append(ex.Mounts, m)
	}
	sort.Slice(ex.Mounts, func(i, j int) bool { return ex.Mounts[i].Path < ex.Mounts[j].Path })
	for env, name := range s.secretEnv {
		ex.Secrets = append(ex.Secrets, SecretUse{Name: name, Env: env})
	}
	for p, name := range s.secretMounts {
		ex.Secrets = append(ex.Secrets, SecretUse{Name: name, Path: p})
	}
	sort.Slice(ex.Secrets, func(i, j int) bool {
		a, b := ex.Secrets[i], ex.Secrets[j]
		return a.Env+"\x00"+a.Path+"\x00"+a.Name < b.Env+"\x00"+b.Path+"\x00"+b.Name
	})
	if len(s.env) > 0 {
		ex.Env = s.envMap()
	}
	for alias, svc := range s.services {
		if ex.Services == nil {
			ex.Services = map[string]string{}
		}
		ex.Services[alias] = svc.String()
	}
	return ex
}

func (e *Engine) runBuild(p *chain, key string) error {
	s, err := sourceAs[*ctrState](e, p)
	if err != nil {
		return err
	}
	b := cloneBuild(s.build)
	b.Context = p.prefix(len(p.Calls) - 1).String()
	b.Chain = p.String()
	e.sleep()
	e.mu.Lock()
	e.rec.builds[key] = b
	e.mu.Unlock()
	return nil
}

// observe records what one call reads from the outside world when its chain is evaluated.
func (e *Engine) observe(c *chain) {
	k := c.Calls[len(c.Calls)-1]
	switch k.On + "." + k.Field {
	case "Container.from":
		e.mu.Lock()
		e.rec.images[k.str("address")] = true
		e.mu.Unlock()
	case "Host.directory", "Host.file":
		hp := HostPath{Kind: strings.ToLower(k.Field), Path: k.str("path"), Include: k.strings("include"), Exclude: k.strings("exclude")}
		e.mu.Lock()
		e.rec.hostPaths[fmt.Sprintf("%s %q %q %q", hp.Kind, hp.Path, hp.Include, hp.Exclude)] = hp
		e.mu.Unlock()
	case "Query.cacheVolume":
		e.mu.Lock()
		e.rec.caches[k.str("key")] = true
		e.mu.Unlock()
	case "GitRepository.tag", "GitRepository.branch", "GitRepository.ref", "GitRepository.commit",
		"GitRepository.head", "GitRepository.latestVersion":
		if ref, err := sourceAs[*gitRefState](e, c); err == nil {
			e.mu.Lock()
			e.rec.gitRefs[GitRef{URL: ref.url, Kind: ref.kind, Name: ref.name}] = true
			e.mu.Unlock()
		}
	case "Container.withServiceBinding":
		if svc := k.object("service"); svc != nil {
			e.recordService(svc, k.str("alias"), false, nil)
		}
	}
}

// recordService notes a service: a Service object, or a Container run with up (args are
// up's own, if given).
func (e *Engine) recordService(svc *chain, alias string, started bool, args []string) {
	st, _ := e.fold(svc)
	rec := Service{Chain: svc.String()}
	switch s := st.(type) {
	case *serviceState:
		rec.Args = slices.Clone(s.args)
		if s.ctr != nil {
			rec.Image = s.ctr.image
		}
	case *ctrState:
		rec.Image, rec.Args = s.image, args
		if len(args) == 0 {
			rec.Args = slices.Concat(s.entrypoint, s.defaultArgs)
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	key := svc.key()
	old := e.rec.services[key]
	if old == nil {
		old = &rec
		e.rec.services[key] = old
	}
	if alias != "" && !slices.Contains(old.Aliases, alias) {
		old.Aliases = append(old.Aliases, alias)
	}
	old.Started = old.Started || started
}

func (e *Engine) execResultOf(p *chain) (execResult, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	nd, ok := e.nodes[p.key()]
	if !ok {
		return execResult{}, false
	}
	return nd.res, true
}

package engine

import (
	"encoding/json"
	"maps"
	"slices"
	"sort"
	"strings"
)

// Exec is one evaluated withExec, with the container state it ran in.
type Exec struct {
	Args     []string
	Env      map[string]string `json:",omitempty"` // plain variables (withEnvVariable) at the exec; nil when none
	Secrets  []SecretUse       `json:",omitempty"` // secret variables and secret mounts, by secret name only
	Workdir  string            `json:",omitempty"`
	User     string            `json:",omitempty"`
	Mounts   []Mount           `json:",omitempty"` // filesystem inputs: mounts, copies and written files
	Services map[string]string `json:",omitempty"` // bound services: alias → service chain; nil when none
	Image    string            `json:",omitempty"` // base image address ("" for scratch or a build)
	Build    *Build            `json:",omitempty"` // the Dockerfile build the container started from, if any
	Platform string            `json:",omitempty"` // "" when the container did not set one
	Expect   string            // SUCCESS, FAILURE or ANY
	Stdin    string            `json:",omitempty"` // what withExec's stdin gives the command
	ExitCode int
	Stdout   string `json:",omitempty"`
	Stderr   string `json:",omitempty"`
	Chain    string // the container chain ending with this withExec
	Runs     int    // times executed: 1, more only when a failed exec was asked again
	Requests int    // times an evaluation needed it, cache hits included
}

// SecretUse is a secret given to a container: as an environment variable or a file.
type SecretUse struct {
	Name string // the secret's name (setSecret) or URI (secret)
	Env  string `json:",omitempty"`
	Path string `json:",omitempty"`
}

// Mount is a filesystem input of a container. Kind is the API field that added it:
// withDirectory, withMountedDirectory, withMountedCache, withMountedFile, withFile,
// withFiles, withNewFile or withMountedTemp.
type Mount struct {
	Path   string
	Kind   string
	Source string `json:",omitempty"` // chain of the directory or file; for caches the optional seed directory
	Cache  string `json:",omitempty"` // cache volume key, for withMountedCache
}

// Build is an evaluated Directory.dockerBuild.
type Build struct {
	Context    string // chain of the build context directory
	Dockerfile string
	Target     string            `json:",omitempty"`
	Platform   string            `json:",omitempty"`
	BuildArgs  map[string]string `json:",omitempty"`
	Secrets    []string          `json:",omitempty"` // secret names
	Chain      string
	Requests   int
}

// Publish is one Container.publish call.
type Publish struct {
	Address  string
	Ref      string   // what publish returned: address@sha256:<digest of the chain>
	Image    string   `json:",omitempty"` // base image of the published container
	Build    *Build   `json:",omitempty"`
	Variants []string `json:",omitempty"` // chains of platformVariants
	Chain    string
}

// Export is one export: Kind is Container, Directory, File or Image (exportImage).
type Export struct {
	Kind  string
	Path  string // host path, or the image name for exportImage
	Chain string
}

// Secret is a secret the graph created.
type Secret struct {
	Name string
	URI  string `json:",omitempty"` // for secret(uri:)
}

// Service is a container run as a service, bound to a container or started.
type Service struct {
	Chain   string
	Image   string   `json:",omitempty"`
	Args    []string `json:",omitempty"` // asService args, or the container's default args
	Aliases []string `json:",omitempty"` // withServiceBinding aliases it was bound under
	Started bool     `json:",omitempty"` // up, start or endpoint was called
}

// HostPath is a folder or file read from the host.
type HostPath struct {
	Kind    string   // directory or file
	Path    string   // as the query gave it
	Include []string `json:",omitempty"`
	Exclude []string `json:",omitempty"`
}

// GitRef is a git reference the graph resolved.
type GitRef struct {
	URL  string
	Kind string // tag, branch, commit, ref, head or latestVersion
	Name string `json:",omitempty"`
}

// Graph is a snapshot of what the queries so far evaluated. Every list is sorted, so two
// runs of the same graph compare equal whatever order the queries arrived in.
type Graph struct {
	execs     []Exec
	images    []string
	builds    []Build
	publishes []Publish
	exports   []Export
	secrets   []Secret
	services  []Service
	caches    []string
	hostPaths []HostPath
	gitRefs   []GitRef
	critical  int
}

// CriticalPath is the number of execs and builds on the longest chain of dependencies that
// ran: with a fixed latency per exec, the least wall time any scheduler could reach.
func (g *Graph) CriticalPath() int { return g.critical }

// Execs lists the evaluated execs, sorted by chain.
func (g *Graph) Execs() []Exec { return slices.Clone(g.execs) }

// ExecsWith lists the execs whose space-joined args contain substr.
func (g *Graph) ExecsWith(substr string) []Exec {
	var out []Exec
	for _, e := range g.execs {
		if strings.Contains(strings.Join(e.Args, " "), substr) {
			out = append(out, e)
		}
	}
	return out
}

// Images lists the image addresses pulled (Container.from) by evaluated chains.
func (g *Graph) Images() []string { return slices.Clone(g.images) }

// Builds lists the evaluated Dockerfile builds.
func (g *Graph) Builds() []Build { return slices.Clone(g.builds) }

// Publishes lists every publish call, repeats included.
func (g *Graph) Publishes() []Publish { return slices.Clone(g.publishes) }

// Exports lists every export call, repeats included.
func (g *Graph) Exports() []Export { return slices.Clone(g.exports) }

// Secrets lists the secrets created (setSecret, secret), by name, never by value.
func (g *Graph) Secrets() []Secret { return slices.Clone(g.secrets) }

// Services lists services that were bound or started.
func (g *Graph) Services() []Service { return slices.Clone(g.services) }

// CacheVolumes lists the keys of cache volumes mounted by evaluated chains.
func (g *Graph) CacheVolumes() []string { return slices.Clone(g.caches) }

// HostPaths lists the host folders and files evaluated chains read.
func (g *Graph) HostPaths() []HostPath { return slices.Clone(g.hostPaths) }

// GitRefs lists the git references evaluated chains resolved.
func (g *Graph) GitRefs() []GitRef { return slices.Clone(g.gitRefs) }

// String is an indented JSON dump of the whole snapshot, for test logs.
func (g *Graph) String() string {
	b, err := json.MarshalIndent(map[string]any{
		"execs": g.execs, "images": g.images, "builds": g.builds, "publishes": g.publishes,
		"exports": g.exports, "secrets": g.secrets, "services": g.services,
		"cacheVolumes": g.caches, "hostPaths": g.hostPaths, "gitRefs": g.gitRefs,
	}, "", "  ")
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// recorder accumulates records; the engine guards it with its mutex.
type recorder struct {
	execs     map[string]*Exec
	images    map[string]bool
	builds    map[string]*Build
	publishes []Publish
	exports   []Export
	secrets   map[Secret]bool
	services  map[string]*Service
	caches    map[string]bool
	hostPaths map[string]HostPath
	gitRefs   map[GitRef]bool
	requests  map[string]int // by exec or build chain key
	// criticalPath is the most execs and builds on one chain of dependencies so far.
	criticalPath int
}

func newRecorder() *recorder {
	return &recorder{
		execs: map[string]*Exec{}, images: map[string]bool{}, builds: map[string]*Build{},
		secrets: map[Secret]bool{}, services: map[string]*Service{}, caches: map[string]bool{},
		hostPaths: map[string]HostPath{}, gitRefs: map[GitRef]bool{}, requests: map[string]int{},
	}
}

func (r *recorder) snapshot() *Graph {
	g := &Graph{critical: r.criticalPath}
	for key, e := range r.execs {
		c := *e
		c.Requests = r.requests[key]
		c.Env = maps.Clone(e.Env)
		c.Services = maps.Clone(e.Services)
		c.Args = slices.Clone(e.Args)
		c.Mounts = slices.Clone(e.Mounts)
		c.Secrets = slices.Clone(e.Secrets)
		c.Build = cloneBuild(e.Build)
		g.execs = append(g.execs, c)
	}
	sort.Slice(g.execs, func(i, j int) bool { return g.execs[i].Chain < g.execs[j].Chain })
	g.images = sortedKeys(r.images)
	for key, b := range r.builds {
		c := cloneBuild(b)
		c.Requests = r.requests[key]
		g.builds = append(g.builds, *c)
	}
	sort.Slice(g.builds, func(i, j int) bool { return g.builds[i].Chain < g.builds[j].Chain })
	g.publishes = slices.Clone(r.publishes)
	sort.SliceStable(g.publishes, func(i, j int) bool {
		a, b := g.publishes[i], g.publishes[j]
		return a.Address+"\x00"+a.Chain < b.Address+"\x00"+b.Chain
	})
	g.exports = slices.Clone(r.exports)
	sort.SliceStable(g.exports, func(i, j int) bool {
		a, b := g.exports[i], g.exports[j]
		return a.Path+"\x00"+a.Chain < b.Path+"\x00"+b.Chain
	})
	for s := range r.secrets {
		g.secrets = append(g.secrets, s)
	}
	sort.Slice(g.secrets, func(i, j int) bool {
		return g.secrets[i].Name+"\x00"+g.secrets[i].URI < g.secrets[j].Name+"\x00"+g.secrets[j].URI
	})
	for _, s := range r.services {
		c := *s
		c.Args = slices.Clone(s.Args)
		c.Aliases = slices.Clone(s.Aliases)
		sort.Strings(c.Aliases)
		g.services = append(g.services, c)
	}
	sort.Slice(g.services, func(i, j int) bool { return g.services[i].Chain < g.services[j].Chain })
	g.caches = sortedKeys(r.caches)
	for _, k := range sortedKeys(r.hostPaths) {
		g.hostPaths = append(g.hostPaths, r.hostPaths[k])
	}
	for ref := range r.gitRefs {
		g.gitRefs = append(g.gitRefs, ref)
	}
	sort.Slice(g.gitRefs, func(i, j int) bool {
		a, b := g.gitRefs[i], g.gitRefs[j]
		return a.URL+"\x00"+a.Kind+"\x00"+a.Name < b.URL+"\x00"+b.Kind+"\x00"+b.Name
	})
	return g
}

func cloneBuild(b *Build) *Build {
	if b == nil {
		return nil
	}
	c := *b
	c.BuildArgs = maps.Clone(b.BuildArgs)
	c.Secrets = slices.Clone(b.Secrets)
	return &c
}

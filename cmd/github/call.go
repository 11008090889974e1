package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"dagger/shipyard/internal/fanout"
	"dagger/shipyard/internal/github"
	"dagger/shipyard/internal/githubclient"
)

// calls are the methods of github.Calls: the only ones `github call` performs.
var calls = reflect.TypeFor[github.Calls]()

// cacheFile is the name of a token's ETag cache in --cache-dir: one file per token, named
// by a MAC of the token (githubclient.CacheSeal.Name), since calls with different tokens
// share the folder (a pull request's GITHUB_TOKEN and the checks' CI_GITHUB_TOKEN share
// the volume of their trust level) and each may read only its own answers. One file for
// all would keep only the last caller's: each call of one token would empty the other's.
func cacheFile(seal githubclient.CacheSeal) string {
	return "etags-" + seal.Name() + ".json.gz"
}

// call performs one of github.Calls: `github call METHOD` reads the call's arguments after
// its context from stdin, as a JSON array, and prints a github.Answer. A failed call
// still prints its Answer (the error as data) and exits 1.
func call(fs *flag.FlagSet) func(context.Context, apiFlags, stdio) error {
	cacheDir := fs.String("cache-dir", "", "a folder keeping the ETag cache between runs, a file per token (sealed with it; unused without one)")
	return func(ctx context.Context, api apiFlags, std stdio) error {
		if fs.NArg() != 1 {
			return usagef("want one method of github.Calls, got %q", fs.Args())
		}
		var raw []json.RawMessage
		if err := json.NewDecoder(std.stdin).Decode(&raw); err != nil {
			return usagef("the arguments on stdin: %w", err)
		}
		p, err := prepare(ctx, github.Request{Method: fs.Arg(0), Args: raw})
		if err != nil {
			return err
		}
		client, save, notes, err := api.cachedClient(*cacheDir)
		if err != nil {
			return err
		}
		answer, callErr, err := p.perform(client)
		if err != nil {
			return err
		}
		answer.Stats, answer.Notes = client.Stats(), notes
		// What was read stays valid whether or not the call succeeded.
		answer.Notes = append(answer.Notes, save()...)
		if err := json.NewEncoder(std.stdout).Encode(answer); err != nil {
			return err
		}
		if callErr != nil {
			return callFailed{callErr}
		}
		return nil
	}
}

// batch performs several of github.Calls at once: `github batch` reads a JSON array of
// github.Request from stdin, makes the calls concurrently on one client and one ETag
// cache, and prints a github.BatchAnswer, each call's answer in the order asked. A failed
// call is its answer's error: the exit code is 0 unless the command line or the requests
// are wrong, and then nothing is called.
func batch(fs *flag.FlagSet) func(context.Context, apiFlags, stdio) error {
	cacheDir := fs.String("cache-dir", "", "a folder keeping the ETag cache between runs, a file per token (sealed with it; unused without one)")
	return func(ctx context.Context, api apiFlags, std stdio) error {
		if fs.NArg() != 0 {
			return usagef("batch takes its calls on stdin, not %q", fs.Args())
		}
		var requests []github.Request
		if err := json.NewDecoder(std.stdin).Decode(&requests); err != nil {
			return usagef("the requests on stdin: %w", err)
		}
		if len(requests) == 0 {
			return usagef("the requests on stdin: none")
		}
		prepared := make([]prepared, len(requests))
		for i, r := range requests {
			p, err := prepare(ctx, r)
			if err != nil {
				return fmt.Errorf("request %d: %w", i+1, err)
			}
			prepared[i] = p
		}
		client, save, notes, err := api.cachedClient(*cacheDir)
		if err != nil {
			return err
		}
		out := github.BatchAnswer{Answers: make([]github.Answer, len(prepared))}
		err = fanout.Each(ctx, 0, len(prepared), func(_ context.Context, i int) (err error) {
			out.Answers[i], _, err = prepared[i].perform(client)
			return err
		})
		if err != nil {
			return err
		}
		out.Stats, out.Notes = client.Stats(), notes
		out.Notes = append(out.Notes, save()...)
		return json.NewEncoder(std.stdout).Encode(out)
	}
}

// prepared is a request checked against github.Calls, its arguments decoded.
type prepared struct {
	method reflect.Method
	args   []reflect.Value
}

// prepare checks r's method and decodes its arguments, after ctx.
func prepare(ctx context.Context, r github.Request) (prepared, error) {
	method, ok := calls.MethodByName(r.Method)
	if !ok {
		return prepared{}, usagef("%q is not a method of github.Calls", r.Method)
	}
	args, err := arguments(ctx, method, r.Args)
	if err != nil {
		return prepared{}, err
	}
	return prepared{method: method, args: args}, nil
}

// perform makes the call on client and returns its Answer's results or error, and the
// call's error itself; err is a result that could not be encoded.
func (p prepared) perform(client *githubclient.Client) (answer github.Answer, callErr error, err error) {
	out := reflect.ValueOf(client).MethodByName(p.method.Name).Call(p.args)
	callErr, _ = out[len(out)-1].Interface().(error)
	if callErr == nil {
		for _, v := range out[:len(out)-1] {
			b, err := json.Marshal(v.Interface())
			if err != nil {
				return github.Answer{}, nil, fmt.Errorf("%s: encoding the result: %w", p.method.Name, err)
			}
			answer.Results = append(answer.Results, b)
		}
	}
	answer.Error = github.ErrorOf(callErr)
	return answer, callErr, nil
}

// callFailed is a call GitHub or the network failed: its Answer is printed already.
type callFailed struct{ error }

// arguments decodes raw into the arguments of method after ctx.
func arguments(ctx context.Context, method reflect.Method, raw []json.RawMessage) ([]reflect.Value, error) {
	t := method.Type
	if len(raw) != t.NumIn()-1 {
		return nil, usagef("%s takes %d arguments after its context, got %d", method.Name, t.NumIn()-1, len(raw))
	}
	args := []reflect.Value{reflect.ValueOf(ctx)}
	for i, r := range raw {
		v := reflect.New(t.In(i + 1))
		if err := json.Unmarshal(r, v.Interface()); err != nil {
			return nil, usagef("%s: argument %d: %w", method.Name, i+1, err)
		}
		args = append(args, v.Elem())
	}
	return args, nil
}

// cachedClient is the client of f with the ETag cache kept in dir ("": none, and none
// without a token either, since only the token seals it), the function that saves it and
// returns the notes of saving, and the notes for the Answer: a cache it cannot use goes on
// cold, and says so.
func (f apiFlags) cachedClient(dir string) (*githubclient.Client, func() []string, []string, error) {
	token, err := f.token()
	if err != nil {
		return nil, nil, nil, err
	}
	nothing := func() []string { return nil }
	if dir == "" || token == "" {
		c, err := f.clientWith(token)
		return c, nothing, nil, err
	}
	seal, err := githubclient.NewCacheSeal(token)
	if err != nil {
		return nil, nil, nil, err
	}
	cache := githubclient.NewCache(0)
	path := filepath.Join(dir, cacheFile(seal))
	var notes []string
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		notes = append(notes, fmt.Sprintf("ETag cache not read, starting cold: %v", err))
	default:
		dropped, err := cache.Import(data, seal)
		switch {
		case err != nil:
			notes = append(notes, fmt.Sprintf("ETag cache not used, starting cold: %v", err))
		case dropped > 0:
			notes = append(notes, fmt.Sprintf("ETag cache: dropped %d stored answer(s) that fail their integrity check (changed, or stored with another token); fetched again", dropped))
		}
	}
	c, err := f.clientWith(token, githubclient.WithCache(cache))
	if err != nil {
		return nil, nil, nil, err
	}
	save := func() []string {
		if err := saveCache(cache, seal, dir); err != nil {
			return []string{fmt.Sprintf("ETag cache not saved, the next call starts cold: %v", err)}
		}
		if err := pruneCaches(dir, cacheFile(seal), time.Now()); err != nil {
			return []string{fmt.Sprintf("ETag cache: old cache files not removed, the folder keeps them: %v", err)}
		}
		return nil
	}
	return c, save, notes, nil
}

// saveCache writes the cache's file of the seal's token beside itself and renames it into
// place, so a run beside this one never reads half a file; of two runs with the same
// token, the last to finish wins. Other tokens' files are left as they are.
func saveCache(cache *githubclient.Cache, seal githubclient.CacheSeal, dir string) error {
	data, err := cache.Export(seal)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".etags-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // nothing once renamed
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, cacheFile(seal)))
}

// What pruneCaches keeps: at most maxCacheFiles cache files, the calling token's included,
// none unused for maxCacheAge, and no temporary file older than maxTempAge (a save takes
// milliseconds: an older one is a run's that stopped before renaming it).
const (
	maxCacheFiles = 16
	maxCacheAge   = 7 * 24 * time.Hour
	maxTempAge    = time.Hour
)

// legacyCacheFile is the one cache file every token shared before each had its own: no
// call reads it.
const legacyCacheFile = "etags.json.gz"

// pruneCaches removes from dir the cache files no call is likely to read again, so that a
// folder calls with ever new tokens share does not grow without bound: GITHUB_TOKEN is a
// new token for every job, and each leaves a file no later job can open. It removes other
// tokens' files unused (not saved) for maxCacheAge, and the oldest beyond the newest
// maxCacheFiles; the legacy file; and stale temporary files. It keeps own, the calling
// token's file, and whatever else the folder holds. A file another run removes first is
// no error.
func pruneCaches(dir, own string, now time.Time) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	type cached struct {
		name string
		mod  time.Time
	}
	var caches []cached
	var remove []string
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || name == own {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		switch age := now.Sub(info.ModTime()); {
		case name == legacyCacheFile:
			remove = append(remove, name)
		case strings.HasPrefix(name, ".etags-"):
			if age > maxTempAge {
				remove = append(remove, name)
			}
		case strings.HasPrefix(name, "etags-") && strings.HasSuffix(name, ".json.gz"):
			if age > maxCacheAge {
				remove = append(remove, name)
			} else {
				caches = append(caches, cached{name, info.ModTime()})
			}
		}
	}
	// The newest first; beyond maxCacheFiles-1 of them (own is one), the rest go.
	slices.SortFunc(caches, func(a, b cached) int { return b.mod.Compare(a.mod) })
	for i, c := range caches {
		if i >= maxCacheFiles-1 {
			remove = append(remove, c.name)
		}
	}
	var errs []error
	for _, name := range remove {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

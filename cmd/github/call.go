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

	"dagger/shipyard/internal/github"
	"dagger/shipyard/internal/githubclient"
)

// calls are the methods of github.Calls: the only ones `github call` performs.
var calls = reflect.TypeFor[github.Calls]()

// cacheFile is the ETag cache's file in --cache-dir.
const cacheFile = "etags.json.gz"

// call performs one of github.Calls: `github call METHOD` reads the call's arguments after
// its context from stdin, as a JSON array, and prints a github.Answer. A failed call
// still prints its Answer (the error as data) and exits 1.
func call(fs *flag.FlagSet) func(context.Context, apiFlags, stdio) error {
	cacheDir := fs.String("cache-dir", "", "a folder keeping the ETag cache between runs (sealed with the token; unused without one)")
	return func(ctx context.Context, api apiFlags, std stdio) error {
		if fs.NArg() != 1 {
			return usagef("want one method of github.Calls, got %q", fs.Args())
		}
		method, ok := calls.MethodByName(fs.Arg(0))
		if !ok {
			return usagef("%q is not a method of github.Calls", fs.Arg(0))
		}
		var raw []json.RawMessage
		if err := json.NewDecoder(std.stdin).Decode(&raw); err != nil {
			return usagef("the arguments on stdin: %w", err)
		}
		args, err := arguments(ctx, method, raw)
		if err != nil {
			return err
		}
		client, save, notes, err := api.cachedClient(*cacheDir)
		if err != nil {
			return err
		}
		out := reflect.ValueOf(client).MethodByName(method.Name).Call(args)
		answer := github.Answer{Stats: client.Stats(), Notes: notes}
		callErr, _ := out[len(out)-1].Interface().(error)
		if callErr == nil {
			for _, v := range out[:len(out)-1] {
				b, err := json.Marshal(v.Interface())
				if err != nil {
					return fmt.Errorf("%s: encoding the result: %w", method.Name, err)
				}
				answer.Results = append(answer.Results, b)
			}
		}
		answer.Error = github.ErrorOf(callErr)
		// What was read stays valid whether or not the call succeeded.
		if err := save(); err != nil {
			answer.Notes = append(answer.Notes, fmt.Sprintf("ETag cache not saved, the next call starts cold: %v", err))
		}
		if err := json.NewEncoder(std.stdout).Encode(answer); err != nil {
			return err
		}
		if callErr != nil {
			return callFailed{callErr}
		}
		return nil
	}
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
// without a token either, since only the token seals it), the function that saves it, and
// the notes for the Answer: a cache it cannot use goes on cold, and says so.
func (f apiFlags) cachedClient(dir string) (*githubclient.Client, func() error, []string, error) {
	token, err := f.token()
	if err != nil {
		return nil, nil, nil, err
	}
	nothing := func() error { return nil }
	if dir == "" || token == "" {
		c, err := f.clientWith(token)
		return c, nothing, nil, err
	}
	seal, err := githubclient.NewCacheSeal(token)
	if err != nil {
		return nil, nil, nil, err
	}
	cache := githubclient.NewCache(0)
	path := filepath.Join(dir, cacheFile)
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
	return c, func() error { return saveCache(cache, seal, dir) }, notes, nil
}

// saveCache writes the cache's file beside itself and renames it into place, so a run
// beside this one never reads half a file; the last run to finish wins.
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
	return os.Rename(tmp.Name(), filepath.Join(dir, cacheFile))
}

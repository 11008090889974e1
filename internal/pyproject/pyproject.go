// Package pyproject reads the TOML files of Python projects (pyproject.toml, and uv.lock,
// which is TOML too) with a real TOML parser, and edits string values in them without
// touching any other byte.
//
// The parser is github.com/pelletier/go-toml/v2: its decoder gives the document's values
// and, for a syntax error, the line and column; its unstable.Parser gives where each value
// is written, which lets an edit replace exactly the bytes of one value and keep the
// file's comments, order and spacing (a template-rendered file stays the template's).
package pyproject

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"

	"dagger/shipyard/internal/quote"
)

// Document is a parsed TOML file: its values by key, and where each string value is
// written.
type Document struct {
	path    string
	data    []byte
	tree    map[string]any
	strings []StringValue
	pairs   []StringValue // every key = value as written, whatever its type
}

// StringValue is one string value as written in the file.
type StringValue struct {
	// Key is the value's full dotted key: the table header's keys, then the key's own
	// (dotted keys included), e.g. "project.version" or "package.version".
	Key string
	// Entry is the index of the [[array table]] entry the value is in (0 for the first
	// [[package]]), or -1 outside an array of tables.
	Entry int
	// Text is the decoded string.
	Text string
	// Line is the 1-based line the value starts on.
	Line int
	// Element is the value's index in the array it is an element of (input = ["a", "b"]
	// gives elements 0 and 1 at one key), or -1 for a value that is not in an array.
	Element int

	start, end int // byte offsets of the value, quotes included
}

// Parse reads data, the contents of the file at path (path is only for messages). A
// malformed file gives an error naming the file, line and column.
func Parse(path string, data []byte) (*Document, error) {
	d := &Document{path: path, data: data}
	if err := toml.Unmarshal(data, &d.tree); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			return nil, fmt.Errorf("%s:%d:%d: not valid TOML: %s: fix the syntax (see toml.io): %w", path, row, col, de.Error(), err)
		}
		return nil, fmt.Errorf("%s: not valid TOML: %w", path, err)
	}
	if err := d.locate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

// locate records every string value (at a key, or in an inline table) with its offsets.
func (d *Document) locate() error {
	var p unstable.Parser
	p.Reset(d.data)
	var table []string
	entry := -1
	entries := map[string]int{}
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			table = keyOf(e)
			entry = -1
			if e.Kind == unstable.ArrayTable {
				name := strings.Join(table, ".")
				entry = entries[name]
				entries[name]++
			}
		case unstable.KeyValue:
			d.pair(&p, table, entry, e)
			d.keyValue(&p, table, entry, e)
		}
	}
	return p.Error()
}

// pair records where a top-level key = value is written.
func (d *Document) pair(p *unstable.Parser, table []string, entry int, kv *unstable.Node) {
	r := kv.Raw
	if r.Length == 0 {
		return
	}
	start := int(r.Offset)
	d.pairs = append(d.pairs, StringValue{
		Key:     strings.Join(append(slices.Clone(table), keyOf(kv)...), "."),
		Entry:   entry,
		Element: -1,
		Text:    string(d.data[start : start+int(r.Length)]),
		Line:    p.Shape(r).Start.Line,
		start:   start,
		end:     start + int(r.Length),
	})
}

func (d *Document) keyValue(p *unstable.Parser, table []string, entry int, kv *unstable.Node) {
	key := append(slices.Clone(table), keyOf(kv)...)
	v := kv.Value()
	switch v.Kind {
	case unstable.String:
		d.str(p, key, entry, -1, v)
	case unstable.Array:
		// Strings of an array (the template writes codegen input as one) are located one
		// by one, so an edit replaces exactly one element.
		i := 0
		for it := v.Children(); it.Next(); i++ {
			if c := it.Node(); c.Kind == unstable.String {
				d.str(p, key, entry, i, c)
			}
		}
	case unstable.InlineTable:
		for it := v.Children(); it.Next(); {
			if c := it.Node(); c.Kind == unstable.KeyValue {
				d.keyValue(p, key, entry, c)
			}
		}
	}
}

func (d *Document) str(p *unstable.Parser, key []string, entry, element int, v *unstable.Node) {
	r := v.Raw
	start := int(r.Offset)
	d.strings = append(d.strings, StringValue{
		Key:     strings.Join(key, "."),
		Entry:   entry,
		Element: element,
		Text:    string(v.Data),
		Line:    p.Shape(r).Start.Line,
		start:   start,
		end:     start + int(r.Length),
	})
}

func keyOf(n *unstable.Node) []string {
	var parts []string
	for it := n.Key(); it.Next(); {
		parts = append(parts, string(it.Node().Data))
	}
	return parts
}

// Path is the file's path as given to Parse.
func (d *Document) Path() string { return d.path }

// Get returns the value at a key path, e.g. Get("project", "version").
func (d *Document) Get(key ...string) (any, bool) {
	var cur any = d.tree
	for _, k := range key {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// String returns the string at a key path; found is false when the key is absent, and
// the error says so when the value is not a string.
func (d *Document) String(key ...string) (s string, found bool, err error) {
	v, ok := d.Get(key...)
	if !ok {
		return "", false, nil
	}
	s, ok = v.(string)
	if !ok {
		return "", true, fmt.Errorf("%s: %s is %s, want a string", d.path, strings.Join(key, "."), describe(v))
	}
	return s, true, nil
}

// Strings returns the array of strings at a key path, with the same rules as String.
func (d *Document) Strings(key ...string) (ss []string, found bool, err error) {
	v, ok := d.Get(key...)
	if !ok {
		return nil, false, nil
	}
	arr, ok := v.([]any)
	if !ok {
		return nil, true, fmt.Errorf("%s: %s is %s, want an array of strings", d.path, strings.Join(key, "."), describe(v))
	}
	for i, e := range arr {
		s, ok := e.(string)
		if !ok {
			return nil, true, fmt.Errorf("%s: %s[%d] is %s, want a string", d.path, strings.Join(key, "."), i, describe(e))
		}
		ss = append(ss, s)
	}
	return ss, true, nil
}

// Tables returns the array of tables at a key path ([[package]] entries), in order.
func (d *Document) Tables(key ...string) []map[string]any {
	v, _ := d.Get(key...)
	arr, _ := v.([]any)
	var out []map[string]any
	for _, e := range arr {
		m, _ := e.(map[string]any)
		out = append(out, m)
	}
	return out
}

// StringValues returns where the string values at a dotted key are written, in file
// order (one per [[array table]] entry that has it, and one per string element of an
// array).
func (d *Document) StringValues(key string) []StringValue { return atKey(d.strings, key) }

// KeyValues returns where each `key = value` at a dotted key is written, whatever the
// value's type (an array, say), in file order; Text is the pair as written. An Edit of
// one replaces the whole pair. Pairs inside inline tables are not listed.
func (d *Document) KeyValues(key string) []StringValue { return atKey(d.pairs, key) }

// atKey keeps the values written at the dotted key, in file order.
func atKey(values []StringValue, key string) []StringValue {
	var out []StringValue
	for _, v := range values {
		if v.Key == key {
			out = append(out, v)
		}
	}
	return out
}

// Edit replaces the written form of value v (quotes included) with raw.
type Edit struct {
	Value StringValue
	Raw   string
}

// Apply returns the document's bytes with each edit's value replaced, every other byte
// kept. Edits must be of distinct values of this document.
func (d *Document) Apply(edits ...Edit) []byte {
	slices.SortFunc(edits, func(a, b Edit) int { return a.Value.start - b.Value.start })
	var out []byte
	at := 0
	for _, e := range edits {
		out = append(out, d.data[at:e.Value.start]...)
		out = append(out, e.Raw...)
		at = e.Value.end
	}
	return append(out, d.data[at:]...)
}

// Quote writes s as a TOML basic string.
func Quote(s string) string { return quote.TOML(s) }

func describe(v any) string {
	switch v := v.(type) {
	case map[string]any:
		return "a table"
	case []any:
		return "an array"
	case bool:
		return "a boolean (" + strconv.FormatBool(v) + ")"
	case int64, float64:
		return fmt.Sprintf("a number (%v)", v)
	default:
		return fmt.Sprintf("a %T", v)
	}
}

package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// chain is an object of the graph: the field calls from Query down to it. IDs are chains
// encoded, so an ID passed back in a later query resolves to the same object, exactly like
// the engine's content-addressed IDs. Chains are immutable once built.
type chain struct {
	Type  string
	Calls []call

	keysOnce sync.Once
	keys     []string // keys[i] identifies the first i+1 calls
}

// call is one field selection. Arguments equal to their schema default are dropped and the
// rest sorted by name, so the SDK's random argument order and its omission of defaults
// never make two equal objects differ.
type call struct {
	On    string // receiver type
	Field string
	Args  []arg
	Nth   int // 1-based element when the field returns a list of objects
}

// arg values are JSON-like: string, bool, int64/float64/json.Number, []any, map[string]any,
// nil, or *chain for ID arguments.
type arg struct {
	Name  string
	Value any
}

func (c *chain) extend(typ string, k call) *chain {
	calls := make([]call, len(c.Calls), len(c.Calls)+1)
	copy(calls, c.Calls)
	return &chain{Type: typ, Calls: append(calls, k)}
}

// prefix returns the object made by the first n calls; its type is the receiver type of
// call n (or the chain's own type when n covers every call).
func (c *chain) prefix(n int) *chain {
	if n >= len(c.Calls) {
		return c
	}
	keys := c.allKeys()
	p := &chain{Type: c.Calls[n].On, Calls: c.Calls[:n]}
	p.keysOnce.Do(func() { p.keys = keys[:n] })
	return p
}

func (k call) arg(name string) (any, bool) {
	for _, a := range k.Args {
		if a.Name == name {
			return a.Value, true
		}
	}
	return nil, false
}

func (k call) str(name string) string {
	v, _ := k.arg(name)
	s, _ := v.(string)
	return s
}

func (k call) boolean(name string) bool {
	v, _ := k.arg(name)
	b, _ := v.(bool)
	return b
}

func (k call) integer(name string) (int, bool) {
	v, ok := k.arg(name)
	if !ok {
		return 0, false
	}
	switch n := v.(type) {
	case int64:
		return int(n), true
	case float64:
		return int(n), true
	case json.Number:
		i, err := n.Int64()
		return int(i), err == nil
	}
	return 0, false
}

func (k call) strings(name string) []string {
	v, _ := k.arg(name)
	list, _ := v.([]any)
	var out []string
	for _, e := range list {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func (k call) object(name string) *chain {
	v, _ := k.arg(name)
	c, _ := v.(*chain)
	return c
}

func (k call) objects(name string) []*chain {
	v, _ := k.arg(name)
	list, _ := v.([]any)
	var out []*chain
	for _, e := range list {
		if c, ok := e.(*chain); ok {
			out = append(out, c)
		}
	}
	return out
}

// deps lists the objects this call takes as arguments, in argument order.
func (k call) deps() []*chain {
	var out []*chain
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case *chain:
			out = append(out, x)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			keys := sortedKeys(x)
			for _, key := range keys {
				walk(x[key])
			}
		}
	}
	for _, a := range k.Args {
		walk(a.Value)
	}
	return out
}

// Wire form. Nested objects are embedded as {"$id": chain} so an ID stays one flat JSON
// document instead of base64 nested in base64.
type wireChain struct {
	T string     `json:"t"`
	C []wireCall `json:"c"`
}

type wireCall struct {
	On string    `json:"on"`
	F  string    `json:"f"`
	A  []wireArg `json:"a,omitempty"`
	N  int       `json:"n,omitempty"`
}

type wireArg struct {
	K string          `json:"k"`
	V json.RawMessage `json:"v"`
}

// MarshalJSON is the canonical form: equal objects give equal bytes.
func (c *chain) MarshalJSON() ([]byte, error) {
	w := wireChain{T: c.Type, C: make([]wireCall, len(c.Calls))}
	for i, k := range c.Calls {
		wc := wireCall{On: k.On, F: k.Field, N: k.Nth}
		for _, a := range k.Args {
			v, err := json.Marshal(normalize(a.Value))
			if err != nil {
				return nil, err
			}
			wc.A = append(wc.A, wireArg{K: a.Name, V: v})
		}
		w.C[i] = wc
	}
	inner, err := json.Marshal(w)
	if err != nil {
		return nil, err
	}
	return append(append([]byte(`{"$id":`), inner...), '}'), nil
}

// key is the identity of the object for caches and records: a hash over its calls, chained
// call by call so every prefix of a chain gets its key from one pass.
func (c *chain) key() string {
	if len(c.Calls) == 0 {
		return "query"
	}
	return c.allKeys()[len(c.Calls)-1]
}

func (c *chain) allKeys() []string {
	c.keysOnce.Do(func() {
		keys := make([]string, len(c.Calls))
		prev := ""
		var b strings.Builder
		for i, k := range c.Calls {
			b.Reset()
			b.WriteString(prev)
			fmt.Fprintf(&b, "\n%s.%s[%d]", k.On, k.Field, k.Nth)
			for _, a := range k.Args {
				b.WriteString("\x00" + a.Name + "=")
				writeCanonical(&b, a.Value)
			}
			sum := sha256.Sum256([]byte(b.String()))
			prev = hex.EncodeToString(sum[:])
			keys[i] = prev
		}
		c.keys = keys
	})
	return c.keys
}

// writeCanonical writes a value so that equal values, whatever their Go number type,
// write equally; objects write as their key.
func writeCanonical(b *strings.Builder, v any) {
	switch x := v.(type) {
	case *chain:
		b.WriteString("#" + x.key())
	case []any:
		b.WriteByte('[')
		for _, e := range x {
			writeCanonical(b, e)
			b.WriteByte(',')
		}
		b.WriteByte(']')
	case map[string]any:
		b.WriteByte('{')
		for _, k := range sortedKeys(x) {
			b.WriteString(strconv.Quote(k) + ":")
			writeCanonical(b, x[k])
			b.WriteByte(',')
		}
		b.WriteByte('}')
	default:
		j, _ := json.Marshal(x)
		b.Write(j)
	}
}

// id is the opaque ID handed to the SDK: the whole chain, so it decodes without any state.
func (c *chain) id() string {
	b, err := json.Marshal(c)
	if err != nil {
		// Values come from parsed GraphQL literals and always marshal.
		panic(fmt.Sprintf("engine double: marshal chain: %v", err))
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeID(id string) (*chain, error) {
	raw, err := base64.RawURLEncoding.DecodeString(id)
	if err != nil {
		return nil, fmt.Errorf("invalid ID %q: not issued by this engine: %w", abbreviate(id), err)
	}
	v, err := decodeJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("invalid ID %q: %w", abbreviate(id), err)
	}
	c, ok := v.(*chain)
	if !ok {
		return nil, fmt.Errorf("invalid ID %q: not an object", abbreviate(id))
	}
	return c, nil
}

func decodeJSON(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return fromJSON(v)
}

// fromJSON turns decoded JSON back into argument values, rebuilding embedded objects.
func fromJSON(v any) (any, error) {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			d, err := fromJSON(e)
			if err != nil {
				return nil, err
			}
			out[i] = d
		}
		return out, nil
	case map[string]any:
		if inner, ok := x["$id"]; ok && len(x) == 1 {
			return chainFromJSON(inner)
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			d, err := fromJSON(e)
			if err != nil {
				return nil, err
			}
			out[k] = d
		}
		return out, nil
	}
	return v, nil
}

func chainFromJSON(v any) (*chain, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var w struct {
		T string `json:"t"`
		C []struct {
			On string `json:"on"`
			F  string `json:"f"`
			A  []struct {
				K string          `json:"k"`
				V json.RawMessage `json:"v"`
			} `json:"a"`
			N int `json:"n"`
		} `json:"c"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, fmt.Errorf("malformed object: %w", err)
	}
	if w.T == "" {
		return nil, fmt.Errorf("malformed object: no type")
	}
	c := &chain{Type: w.T, Calls: make([]call, len(w.C))}
	for i, wc := range w.C {
		k := call{On: wc.On, Field: wc.F, Nth: wc.N}
		for _, wa := range wc.A {
			val, err := decodeJSON(wa.V)
			if err != nil {
				return nil, err
			}
			k.Args = append(k.Args, arg{Name: wa.K, Value: val})
		}
		c.Calls[i] = k
	}
	return c, nil
}

// normalize makes equal values marshal equally: an absent list and an empty one are the
// same argument.
func normalize(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalize(e)
		}
		return out
	}
	return v
}

// String renders the chain the way a reader writes it:
// container.from(address:"alpine").withExec(args:["ls"]).
func (c *chain) String() string {
	var b strings.Builder
	for i, k := range c.Calls {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(k.Field)
		if len(k.Args) > 0 {
			b.WriteByte('(')
			for j, a := range k.Args {
				if j > 0 {
					b.WriteByte(',')
				}
				b.WriteString(a.Name)
				b.WriteByte(':')
				writeValue(&b, a.Value)
			}
			b.WriteByte(')')
		}
		if k.Nth > 0 {
			fmt.Fprintf(&b, "[%d]", k.Nth)
		}
	}
	if len(c.Calls) == 0 {
		return "query"
	}
	return b.String()
}

func writeValue(b *strings.Builder, v any) {
	switch x := v.(type) {
	case *chain:
		b.WriteString(x.String())
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeValue(b, e)
		}
		b.WriteByte(']')
	case map[string]any:
		b.WriteByte('{')
		for i, k := range sortedKeys(x) {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(k)
			b.WriteByte(':')
			writeValue(b, x[k])
		}
		b.WriteByte('}')
	case string:
		b.WriteString(strconv.Quote(x))
	default:
		j, _ := json.Marshal(x)
		b.Write(j)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func abbreviate(s string) string {
	if len(s) > 24 {
		return s[:24] + "…"
	}
	return s
}

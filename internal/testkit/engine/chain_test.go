package engine

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"dagger.io/dagger"
)

func TestIDRoundTrip(t *testing.T) {
	nested := &chain{Type: "Directory", Calls: []call{
		{On: "Query", Field: "directory"},
		{On: "Directory", Field: "withNewFile", Args: []arg{{Name: "contents", Value: "x"}, {Name: "path", Value: "a"}}},
	}}
	cases := []*chain{
		{Type: "Query"},
		{Type: "Container", Calls: []call{
			{On: "Query", Field: "container"},
			{On: "Container", Field: "from", Args: []arg{{Name: "address", Value: "alpine"}}},
			{On: "Container", Field: "withDirectory", Args: []arg{{Name: "path", Value: "/x"}, {Name: "source", Value: nested}}},
			{On: "Container", Field: "withFiles", Args: []arg{{Name: "sources", Value: []any{nested, nested}}}},
			{On: "Container", Field: "withExposedPort", Args: []arg{{Name: "port", Value: int64(8080)}}},
			{On: "Container", Field: "withLabel", Args: []arg{{Name: "meta", Value: map[string]any{"k": []any{true, nil}}}}},
		}},
		{Type: "EnvVariable", Calls: []call{{On: "Query", Field: "container"}, {On: "Container", Field: "envVariables", Nth: 2}}},
	}
	for _, c := range cases {
		t.Run(c.String(), func(t *testing.T) {
			back, err := decodeID(c.id())
			if err != nil {
				t.Fatal(err)
			}
			if back.key() != c.key() || back.id() != c.id() || back.String() != c.String() || back.Type != c.Type {
				t.Errorf("round trip changed the object:\n got %s\nwant %s", back, c)
			}
		})
	}
}

func TestIDsAreCanonical(t *testing.T) {
	e := New(t)
	_, token := e.SessionEnv()
	idOf := func(t *testing.T, query string) string {
		status, body := rawQuery(t, e, token, query)
		if status != http.StatusOK {
			t.Fatalf("status %d: %v", status, body)
		}
		b, _ := json.Marshal(body["data"])
		return string(b)
	}
	cases := []struct {
		name, a, b string
	}{
		{"argument order",
			`query Query {container{withEnvVariable(name:"A", value:"1"){id}}}`,
			`query Query {container{withEnvVariable(value:"1", name:"A"){id}}}`},
		{"explicit defaults",
			`query Query {container{withExec(args:["ls"]){id}}}`,
			`query Query {container{withExec(args:["ls"], expect: SUCCESS, useEntrypoint: false){id}}}`},
		{"aliases",
			`query Query {container{withExec(args:["ls"]){id}}}`,
			`query Query {c: container{e: withExec(args:["ls"]){id: id}}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, b := idOf(t, tc.a), idOf(t, tc.b)
			var da, db map[string]any
			_ = json.Unmarshal([]byte(a), &da)
			_ = json.Unmarshal([]byte(b), &db)
			if leafID(da) != leafID(db) || leafID(da) == "" {
				t.Errorf("IDs differ:\n%s\n%s", a, b)
			}
		})
	}
}

// leafID digs the single string out of a one-path response.
func leafID(v any) string {
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			return leafID(e)
		}
	case string:
		return x
	}
	return ""
}

func TestIDOfLoadedObjectContinuesTheChain(t *testing.T) {
	ctx := context.Background()
	e := New(t)
	c := e.Client(ctx)
	direct, err := c.Container().From("alpine").WithExec([]string{"ls"}).ID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	id, err := c.Container().From("alpine").ID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := c.LoadContainerFromID(dagger.ContainerID(id)).WithExec([]string{"ls"}).ID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if loaded != direct {
		t.Errorf("loading by ID must not change the object's identity")
	}
}

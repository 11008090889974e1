package registry

import (
	"errors"
	"reflect"
	"testing"
)

func TestRecheck(t *testing.T) {
	t.Parallel()
	const repo, d, other = "r.example/o/x", "sha256:d", "sha256:o"
	version := TagAction{Tag: "1.0.0", Class: ClassVersion, Action: ActionCreate}
	keptVersion := TagAction{Tag: "1.0.0", Class: ClassVersion, Action: ActionKeep}
	dev := TagAction{Tag: "dev", Class: ClassMoving, Action: ActionCreate}
	devMove := TagAction{Tag: "dev", Class: ClassMoving, Action: ActionMove, From: other}
	devKept := TagAction{Tag: "dev", Class: ClassMoving, Action: ActionKeep}
	latest := TagAction{Tag: "latest", Class: ClassMoving, Action: ActionCreate}
	tests := []struct {
		name       string
		planned    []TagAction
		current    map[string]string
		want       []TagAction
		concurrent bool
	}{
		{name: "still absent", planned: []TagAction{version, dev}, current: map[string]string{}, want: []TagAction{version, dev}},
		{name: "still on its digest", planned: []TagAction{keptVersion}, current: map[string]string{"1.0.0": d}, want: []TagAction{keptVersion}},
		{name: "written meanwhile on this digest: kept", planned: []TagAction{version, dev}, current: map[string]string{"1.0.0": d}, want: []TagAction{keptVersion, dev}},
		{name: "written meanwhile on another digest", planned: []TagAction{version}, current: map[string]string{"1.0.0": other}, concurrent: true},
		{name: "kept tag moved away", planned: []TagAction{keptVersion}, current: map[string]string{"1.0.0": other}, concurrent: true},
		{name: "kept tag deleted", planned: []TagAction{keptVersion}, current: map[string]string{}, concurrent: true},
		{name: "dev still where the plan found it", planned: []TagAction{devMove}, current: map[string]string{"dev": other}, want: []TagAction{devMove}},
		{name: "dev moved since the plan", planned: []TagAction{devMove}, current: map[string]string{"dev": "sha256:newer"}, concurrent: true},
		{name: "dev created elsewhere since the plan", planned: []TagAction{dev}, current: map[string]string{"dev": other}, concurrent: true},
		{name: "dev deleted since the plan", planned: []TagAction{devMove}, current: map[string]string{}, concurrent: true},
		{name: "dev moved here meanwhile: kept", planned: []TagAction{devMove}, current: map[string]string{"dev": d}, want: []TagAction{devKept}},
		{name: "latest is rechecked by its own rule, not here", planned: []TagAction{latest}, current: map[string]string{"latest": other}, want: []TagAction{latest}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Recheck(tesk, repo, d, tt.planned, tt.current)
			var ce *ConcurrentTagError
			if tt.concurrent {
				if !errors.As(err, &ce) || got != nil {
					t.Fatalf("Recheck = %v, %v; want a ConcurrentTagError", got, err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Recheck = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

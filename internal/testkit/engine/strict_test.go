package engine

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"dagger.io/dagger"
)

func TestStrictExecs(t *testing.T) {
	cases := []struct {
		name       string
		opts       []Option
		rule       *ExecRule
		expected   []string // given to ExpectExecs
		expect     dagger.ReturnType
		wantErr    string // "" when the exec succeeds
		wantErrors int    // reported at cleanup
	}{
		{"lenient answers an unmatched exec with exit 0", nil, nil, nil, "", "", 0},
		{"strict fails an unmatched exec", []Option{StrictExecs()}, nil, nil, "",
			`no rule expects the exec "pytest -q" on python:3.12`, 1},
		{"strict fails it even when any exit code is expected", []Option{StrictExecs()}, nil, nil, dagger.ReturnTypeAny,
			`no rule expects the exec "pytest -q"`, 1},
		{"strict fails an exec other than the expected ones", []Option{StrictExecs()}, nil, []string{"ruff check"}, "",
			`no rule expects the exec "pytest -q"`, 1},
		{"strict passes an expected exec", []Option{StrictExecs()}, &ExecRule{ArgsContain: "pytest"}, nil, "", "", 0},
		{"strict passes an exec declared with ExpectExecs", []Option{StrictExecs()}, nil, []string{"ruff check", "pytest -q"}, "", "", 0},
		{"strict keeps a rule's failure a plain exec failure", []Option{StrictExecs()}, &ExecRule{ArgsContain: "pytest", ExitCode: 1}, nil, "",
			`process "pytest -q" did not complete successfully: exit code: 1`, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			tb := &captureTB{TB: t}
			e := New(tb, tc.opts...)
			if tc.rule != nil {
				e.OnExec(*tc.rule)
			}
			e.ExpectExecs(tc.expected...)
			c, err := dagger.Connect(ctx, dagger.WithConn(&conn{e: e, client: e.srv.Client()}))
			if err != nil {
				t.Fatal(err)
			}
			ctr := c.Container().From("python:3.12").WithExec([]string{"pytest", "-q"}, dagger.ContainerWithExecOpts{Expect: tc.expect})
			_, err = ctr.Sync(ctx)
			// Asking twice must not report the exec twice.
			_, err2 := ctr.Sync(ctx)
			_ = c.Close()
			if tc.wantErr == "" {
				if err != nil || err2 != nil {
					t.Fatalf("sync: %v, %v", err, err2)
				}
			} else {
				var execErr *dagger.ExecError
				if !errors.As(err, &execErr) || !strings.Contains(execErr.Message(), tc.wantErr) {
					t.Fatalf("err = %v (%T), want an exec error with %q", err, err, tc.wantErr)
				}
				if !reflect.DeepEqual(execErr.Cmd, []string{"pytest", "-q"}) {
					t.Errorf("exec error names %v", execErr.Cmd)
				}
			}
			if got := len(e.UnexpectedExecs()); got != tc.wantErrors {
				t.Errorf("UnexpectedExecs lists %d, want %d", got, tc.wantErrors)
			}
			tb.runCleanups()
			if len(tb.errors) != tc.wantErrors {
				t.Fatalf("cleanup reported %d errors, want %d: %v", len(tb.errors), tc.wantErrors, tb.errors)
			}
			if tc.wantErrors > 0 && !strings.Contains(tb.errors[0], `no rule expects the exec "pytest -q"`) {
				t.Errorf("cleanup error %q should name the command", tb.errors[0])
			}
		})
	}
}

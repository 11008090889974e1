package ci

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestParseVerdict(t *testing.T) {
	tests := []struct {
		in      string
		want    Verdict
		wantErr string
	}{
		{`{"job":"Scan","passed":true,"failures":[]}`, Verdict{Job: "Scan", Passed: true, Failures: []string{}}, ""},
		{`{"job":"CI","passed":false,"failures":["Docs: mkdocs"]}`, Verdict{Job: "CI", Failures: []string{"Docs: mkdocs"}}, ""},
		{`{"job":"CI","passed":true}`, Verdict{}, "want the keys passed and failures"},
		{`{"failures":[]}`, Verdict{}, "want the keys passed and failures"},
		{`{"passed":true,"failures":["x"]}`, Verdict{}, "passed with 1 failures"},
		{`{"passed":false,"failures":[]}`, Verdict{}, "failed without a failure named"},
		{`{"passed":"yes","failures":[]}`, Verdict{}, "verdict.json: json"},
	}
	for _, tt := range tests {
		got, err := ParseVerdict([]byte(tt.in))
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: err %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got.Job != tt.want.Job || got.Passed != tt.want.Passed || strings.Join(got.Failures, "|") != strings.Join(tt.want.Failures, "|") {
			t.Errorf("%s: got %+v, %v", tt.in, got, err)
		}
	}
}

// A verdict round-trips through verdict.json, and Err is what a check fails with.
func TestVerdictRoundTripAndErr(t *testing.T) {
	for _, v := range []Verdict{NewVerdict("Scan"), NewVerdict("CI", "Docs: broken link", "Lint: ruff"), VerdictOf("Test", errors.New("pytest exited 1"))} {
		back, err := ParseVerdict([]byte(v.JSON()))
		if err != nil || back.Passed != v.Passed || strings.Join(back.Failures, "|") != strings.Join(v.Failures, "|") {
			t.Errorf("%+v came back as %+v, %v", v, back, err)
		}
		if (v.Err() == nil) != v.Passed {
			t.Errorf("%+v: Err() = %v", v, v.Err())
		}
	}
	if err := NewVerdict("CI", "Docs: broken link").Err(); err == nil || err.Error() != "CI failed: Docs: broken link" {
		t.Errorf("Err() = %v", err)
	}
}

func TestReadVerdictFromReports(t *testing.T) {
	ctx := context.Background()
	p, _ := newPipeline(t, nil)
	if _, err := ReadVerdict(ctx, p.Client.Directory()); !errors.Is(err, ErrNoVerdict) {
		t.Errorf("no verdict: %v", err)
	}
	dir := WithVerdict(p.Client.Directory().WithNewFile("summary.txt", "x"), NewVerdict("Scan", "image filer has fixable CRITICAL or HIGH vulnerabilities"))
	v, err := ReadVerdict(ctx, dir)
	if err != nil || v.Passed || v.Job != "Scan" {
		t.Errorf("verdict %+v, %v", v, err)
	}
}

func FuzzParseVerdict(f *testing.F) {
	f.Add([]byte(NewVerdict("CI", "x").JSON()))
	f.Add([]byte(`{"passed":true,"failures":[]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := ParseVerdict(b)
		if err != nil {
			return
		}
		if v.Passed != (len(v.Failures) == 0) {
			t.Fatalf("accepted a verdict that contradicts itself: %+v", v)
		}
	})
}

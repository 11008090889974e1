package models

import "testing"

func TestPublication(t *testing.T) {
	ok := PublishInputs{ChecksPassed: true}
	with := func(edit func(*PublishInputs)) PublishInputs {
		in := ok
		edit(&in)
		return in
	}
	tests := []struct {
		name string
		in   PublishInputs
		want PublishAction
	}{
		{name: "zero inputs refuse", in: PublishInputs{}, want: Stop},
		{name: "drafts are the default", in: ok, want: Draft},
		{name: "manual default is a dry run", in: with(func(in *PublishInputs) { in.DryRun = true }), want: DryRun},
		{name: "AUTO_PUBLISH_MODELS publishes", in: with(func(in *PublishInputs) { in.AutoPublish = true }), want: Publish},
		{name: "publish with dry_run=false publishes", in: with(func(in *PublishInputs) { in.PublishFlag = true }), want: Publish},
		{name: "publish with a dry run is a dry run", in: with(func(in *PublishInputs) { in.PublishFlag, in.DryRun = true, true }), want: DryRun},
		{name: "AUTO_PUBLISH_MODELS in a dry run is a dry run", in: with(func(in *PublishInputs) { in.AutoPublish, in.DryRun = true, true }), want: DryRun},
		{name: "failed checks stop a publish", in: PublishInputs{PublishFlag: true, AutoPublish: true}, want: Stop},
		{name: "failed checks stop a dry run", in: PublishInputs{DryRun: true}, want: Stop},
		{name: "failed checks stop an unchanged run", in: PublishInputs{FingerprintUnchanged: true, AutoPublish: true}, want: Stop},
		{name: "unchanged fingerprint is a no-op", in: with(func(in *PublishInputs) { in.FingerprintUnchanged = true }), want: Nothing},
		{name: "unchanged beats publish", in: with(func(in *PublishInputs) { in.FingerprintUnchanged, in.PublishFlag, in.AutoPublish = true, true, true }), want: Nothing},
		{name: "unchanged in a dry run", in: with(func(in *PublishInputs) { in.FingerprintUnchanged, in.DryRun = true, true }), want: Nothing},
		{name: "main advanced stops a draft", in: with(func(in *PublishInputs) { in.MainAdvanced = true }), want: Stop},
		{name: "main advanced stops a publish", in: with(func(in *PublishInputs) { in.MainAdvanced, in.AutoPublish, in.PublishFlag = true, true, true }), want: Stop},
		{name: "main advanced does not matter to a dry run", in: with(func(in *PublishInputs) { in.MainAdvanced, in.DryRun = true, true }), want: DryRun},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Publication(tt.in)
			if got.Action != tt.want || got.Reason == "" {
				t.Errorf("Publication(%+v) = %v (%q), want %v", tt.in, got.Action, got.Reason, tt.want)
			}
		})
	}
}

// TestPublicationNeverPublishesUnsafely walks every input combination and
// checks the safety rules hold whatever the order of the cases in Publication.
func TestPublicationNeverPublishesUnsafely(t *testing.T) {
	for bits := 0; bits < 1<<6; bits++ {
		in := PublishInputs{
			DryRun: bits&1 != 0, PublishFlag: bits&2 != 0, AutoPublish: bits&4 != 0,
			ChecksPassed: bits&8 != 0, MainAdvanced: bits&16 != 0, FingerprintUnchanged: bits&32 != 0,
		}
		got := Publication(in).Action
		writes := got == Draft || got == Publish
		switch {
		case !in.ChecksPassed && got != Stop:
			t.Errorf("%+v: %v after failed checks", in, got)
		case writes && (in.DryRun || in.MainAdvanced || in.FingerprintUnchanged):
			t.Errorf("%+v: %v writes", in, got)
		case got == Publish && !in.PublishFlag && !in.AutoPublish:
			t.Errorf("%+v: published without being asked", in)
		case got == Draft && (in.PublishFlag || in.AutoPublish):
			t.Errorf("%+v: asked to publish, left a draft", in)
		}
	}
}

func TestPublishActionString(t *testing.T) {
	want := map[PublishAction]string{Stop: "stop", Nothing: "nothing", DryRun: "dry-run", Draft: "draft", Publish: "publish", PublishAction(99): "unknown"}
	for a, s := range want {
		if a.String() != s {
			t.Errorf("%d.String() = %q, want %q", int(a), a.String(), s)
		}
	}
}

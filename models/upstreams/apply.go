package upstreams

import (
	"errors"
	"fmt"
	"slices"
)

// Apply writes the plan's applied changes into the file: each patch replaces its matrix
// entry, the Cloudcoil change sets cloudcoil.version. Schema URLs follow by themselves,
// because the file holds them as templates of the matrix versions. A change that does not
// fit the file (its "from" is not there any more) is an error and leaves the file as it was.
func (f *File) Apply(plan Updates) error {
	versions := map[string][]string{} // staged copies, committed only when all fit
	cloudcoil := f.Cloudcoil.Version
	for _, c := range plan.Applied() {
		switch c.Kind {
		case KindPatch:
			in := f.Integrations[c.Integration]
			if in == nil {
				return fmt.Errorf("%s: integrations.%s: not in the file", FilePath, c.Integration)
			}
			from, errFrom := ParseVersion(c.From)
			to, errTo := ParseVersion(c.To)
			if err := errors.Join(errFrom, errTo); err != nil {
				return fmt.Errorf("%s: integrations.%s: patch %s → %s: %w", FilePath, c.Integration, c.From, c.To, err)
			}
			if from.Line() != to.Line() || to.Compare(from) <= 0 {
				return fmt.Errorf("%s: integrations.%s: %s → %s is not a patch update", FilePath, c.Integration, c.From, c.To)
			}
			staged, ok := versions[c.Integration]
			if !ok {
				staged = slices.Clone(in.Versions)
			}
			i := slices.Index(staged, c.From)
			if i < 0 {
				return fmt.Errorf("%s: integrations.%s.versions: %s is not in the matrix %v", FilePath, c.Integration, c.From, staged)
			}
			staged[i] = c.To
			versions[c.Integration] = staged
		case KindCloudcoil:
			if c.Integration != f.Cloudcoil.Package || c.From != cloudcoil {
				return fmt.Errorf("%s: cloudcoil.version: the plan updates %s %s but the file requires %s %s",
					FilePath, c.Integration, c.From, f.Cloudcoil.Package, cloudcoil)
			}
			cloudcoil = c.To
		default:
			return fmt.Errorf("%s: change %s of %s: kind %q is never applied", FilePath, c.To, c.Integration, c.Kind)
		}
	}
	old := map[string][]string{}
	oldCloudcoil := f.Cloudcoil.Version
	for name, vs := range versions {
		old[name] = f.Integrations[name].Versions
		f.Integrations[name].Versions = vs
	}
	f.Cloudcoil.Version = cloudcoil
	if errs := f.Validate(); len(errs) > 0 {
		for name, vs := range old {
			f.Integrations[name].Versions = vs
		}
		f.Cloudcoil.Version = oldCloudcoil
		f.Validate() // recompile patterns of the restored file
		return fmt.Errorf("applying the plan: %w", errors.Join(errs...))
	}
	return nil
}

// ApplyToUpstreams applies the plan to the bytes of models/upstreams.json and returns the
// file in its stable machine format. A plan without applied changes returns b unchanged.
func ApplyToUpstreams(b []byte, plan Updates) ([]byte, error) {
	if !plan.HasEdits() {
		return b, nil
	}
	return rewrite(b, func(f *File) error { return f.Apply(plan) })
}

// Propose writes a proposal of a new line (KindProposed) into the file: To joins the
// generation matrix as its newest entry and the versions it retires leave it (the replaced
// line under PolicyNewestMinor, the oldest past the count under PolicyMaintainedLines); To
// gets its schema URLs,
// which the file holds as templates of the matrix versions. The result must validate
// (schema URLs defined for To, one version per line); otherwise the file is left as it
// was and the proposal stays a note for the reviewer.
func (f *File) Propose(c Change) error {
	in := f.Integrations[c.Integration]
	switch {
	case c.Kind != KindProposed:
		return fmt.Errorf("%s: change %s of %s: only a proposal (kind %q) is proposed, not %q", FilePath, c.To, c.Integration, KindProposed, c.Kind)
	case in == nil:
		return fmt.Errorf("%s: integrations.%s: not in the file", FilePath, c.Integration)
	}
	to, err := ParseVersion(c.To)
	if err != nil {
		return fmt.Errorf("%s: integrations.%s: proposal %s: %w", FilePath, c.Integration, c.To, err)
	}
	if _, err := in.SchemaURLsFor(to); err != nil {
		return fmt.Errorf("%s: integrations.%s: no schema URLs for %s: %w; add a schema_urls entry for the new line by hand", FilePath, c.Integration, c.To, err)
	}
	for _, v := range in.Versions {
		if cur, err := ParseVersion(v); err == nil && cur.Line().Compare(to.Line()) >= 0 {
			return fmt.Errorf("%s: integrations.%s.versions: %s is not beyond the tracked line %s", FilePath, c.Integration, c.To, cur.Line())
		}
	}
	old, declined := in.Versions, in.Declined
	in.Versions = proposedMatrix(old, c)
	// A proposal is newer than any release the file declines, so the decline is spent.
	in.Declined = ""
	if errs := f.Validate(); len(errs) > 0 {
		in.Versions, in.Declined = old, declined
		f.Validate() // recompile patterns of the restored file
		return fmt.Errorf("proposing %s %s: %w", c.Integration, c.To, errors.Join(errs...))
	}
	return nil
}

// ProposeToUpstreams writes a proposal into the bytes of models/upstreams.json (see
// Propose) and returns the file in its stable machine format.
func ProposeToUpstreams(b []byte, c Change) ([]byte, error) {
	return rewrite(b, func(f *File) error { return f.Propose(c) })
}

// rewrite parses the bytes of models/upstreams.json, changes the file with change and
// returns it in its stable machine format; a failed change returns nothing to write.
func rewrite(b []byte, change func(*File) error) ([]byte, error) {
	f, err := Parse(b)
	if err != nil {
		return nil, err
	}
	if err := change(f); err != nil {
		return nil, err
	}
	return f.Marshal()
}

// proposedMatrix is the matrix after a proposal: the lines it retires gone (by line, so a
// patch applied to a retired line first does not keep it), To added last.
func proposedMatrix(matrix []string, c Change) []string {
	retired := map[Line]bool{}
	for _, r := range c.Retires {
		if v, err := ParseVersion(r); err == nil {
			retired[v.Line()] = true
		}
	}
	var out []string
	for _, s := range matrix {
		if v, err := ParseVersion(s); err != nil || !retired[v.Line()] {
			out = append(out, s)
		}
	}
	return append(out, c.To)
}

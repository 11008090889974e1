package versions

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"strings"

	"dagger/shipyard/models/upstreams"
)

// FileChange is a file of the generator repository with the content the plan wants.
type FileChange struct {
	Path    string
	Content []byte
}

// desiredFiles applies the plan to the files read at the base head and returns those whose
// content changes, upstreams.json first and then each cookiecutter.yaml in plan order. A
// plan without applied changes wants no file.
func desiredFiles(src *sources, plan upstreams.Updates) ([]FileChange, error) {
	if !plan.HasEdits() {
		return nil, nil
	}
	var out []FileChange
	newUpstreams, err := upstreams.ApplyToUpstreams(src.upstreamsJSON, plan)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(newUpstreams, src.upstreamsJSON) {
		out = append(out, FileChange{Path: upstreams.FilePath, Content: newUpstreams})
	}
	for _, name := range patchedIntegrations(plan) {
		in := src.file.Integrations[name]
		old, ok := src.cookiecutters[name]
		if in == nil || !ok {
			return nil, fmt.Errorf("%s: integrations.%s: the plan edits it but its %s was not read", upstreams.FilePath, name, upstreams.CookiecutterPath(name))
		}
		edited, err := upstreams.ApplyToCookiecutter(old, *in, plan)
		if err != nil {
			return nil, err
		}
		if !bytes.Equal(edited, old) {
			out = append(out, FileChange{Path: upstreams.CookiecutterPath(name), Content: edited})
		}
	}
	raised, err := raisedRequirements(src, plan)
	if err != nil {
		return nil, err
	}
	return append(out, raised...), nil
}

// raisedRequirements moves the requirement on Cloudcoil within its minor, in every file
// read that declares it, to the version the plan applies.
func raisedRequirements(src *sources, plan upstreams.Updates) ([]FileChange, error) {
	var out []FileChange
	for _, c := range plan.Applied() {
		if c.Kind != upstreams.KindCloudcoil {
			continue
		}
		minor, err := upstreams.ParseLine(src.file.Cloudcoil.Minor)
		if err != nil {
			return nil, fmt.Errorf("%s: cloudcoil.minor: %w", upstreams.FilePath, err)
		}
		for _, path := range requirementPaths() {
			data, ok := src.requirements[path]
			if !ok {
				continue
			}
			raised, _, err := upstreams.RaiseRequirement(path, data, c.Integration, minor, c.To)
			if err != nil {
				return nil, err
			}
			if !bytes.Equal(raised, data) {
				out = append(out, FileChange{Path: path, Content: raised})
			}
		}
	}
	return out, nil
}

// gitBlobSHA is Git's object id of a file's content, which GitHub reports for each file of
// a comparison: equal ids mean equal contents, without downloading them.
func gitBlobSHA(content []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(content))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}

// commitMessage is the automation commit's message: the pull request title, then one line
// per applied change. It holds no time, so the same plan always writes the same message.
func commitMessage(plan upstreams.Updates) string {
	var b strings.Builder
	b.WriteString(plan.PRTitle())
	b.WriteString("\n\n")
	for _, c := range plan.Applied() {
		fmt.Fprintf(&b, "- %s %s → %s", c.Integration, c.From, c.To)
		if c.Tag != "" {
			fmt.Fprintf(&b, " (%s)", c.Tag)
		}
		b.WriteByte('\n')
	}
	b.WriteString("\nWritten by dagger call model-versions from models/upstreams.json.\n")
	return b.String()
}

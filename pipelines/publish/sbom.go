package publish

import (
	"context"
	"dagger/shipyard/internal/flow"
	"encoding/json"
	"fmt"
	"strings"
)

// KindSBOM is the evidence kind of an attested SBOM.
const KindSBOM = "sbom"

// sbomPath is where the tool container finds the SBOM it attests.
const sbomPath = "/run/shipyard/sbom.cdx.json"

// attestSBOMs is the SBOM attestation of pushed, as AttestSBOMs describes.
func attestSBOMs(ctx context.Context, in SignInputs, sc Scanner, t Target, pushed []Pushed) ([]Evidence, error) {
	if err := checkPublished(ctx, t, pushed); err != nil {
		return nil, err
	}
	subjects := subjectsOf(pushed)
	return runPerImage(ctx, subjectRefs(subjects), func(i int, img Pushed) (Evidence, error) {
		with := in
		if listed := subjects[i].listed; len(listed) > 0 {
			doc, err := IndexSBOM(img, listed)
			if err != nil {
				return Evidence{}, fmt.Errorf("%s: %w", img.Name, err)
			}
			// A file of its own, mounted like a scanner's SBOM: the tool reads mounts only.
			bom := in.Tool.WithNewFile(sbomPath, string(doc)).File(sbomPath)
			with.Tool = in.Tool.WithMountedFile(sbomPath, bom)
		} else {
			// The scanner's caches are the attesting call's own: a credentialed call's.
			with.Tool = in.Tool.WithMountedFile(sbomPath, sc.SBOM(ScanItem{Name: img.Name, Ref: img.Ref()}))
		}
		return with.publishStep(ctx, "attest", KindSBOM, CycloneDXPredicateType, t, img, []string{"--sbom", sbomPath})
	})
}

// cdxComponent is the part of a CycloneDX component IndexSBOM writes.
type cdxComponent struct {
	Type       string        `json:"type"`
	BOMRef     string        `json:"bom-ref"`
	Name       string        `json:"name"`
	Version    string        `json:"version"`
	Hashes     []cdxHash     `json:"hashes"`
	Properties []cdxProperty `json:"properties,omitempty"`
}

type cdxHash struct {
	Alg     string `json:"alg"`
	Content string `json:"content"`
}

type cdxProperty struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// PlatformProperty names a platform image's platform in the index's SBOM.
const PlatformProperty = "oci:image:platform"

// IndexSBOM is the CycloneDX 1.6 SBOM of an image index: the index as the described
// component, and each platform image it lists as a container component it depends on, by
// digest and platform. An index holds no files; the packages are in each platform image's
// own SBOM, attested on that image's digest. It is a few fields, so it is written here
// rather than with a CycloneDX library.
func IndexSBOM(index Pushed, listed []PlatformDigest) ([]byte, error) {
	if err := index.Check(); err != nil {
		return nil, err
	}
	if len(listed) == 0 {
		return nil, fmt.Errorf("image %s: an index SBOM needs the platform images it lists", index.Name)
	}
	component := func(digest string) cdxComponent {
		return cdxComponent{
			Type: "container", BOMRef: index.Repository + "@" + digest, Name: index.Repository, Version: digest,
			Hashes: []cdxHash{{Alg: "SHA-256", Content: strings.TrimPrefix(digest, "sha256:")}},
		}
	}
	type dependency struct {
		Ref       string   `json:"ref"`
		DependsOn []string `json:"dependsOn"`
	}
	top := component(index.Digest)
	dep := dependency{Ref: top.BOMRef}
	var components []cdxComponent
	for _, pd := range listed {
		if !digestRE.MatchString(pd.Digest) || pd.Platform == "" {
			return nil, fmt.Errorf("image %s: platform image %+v needs a platform and a sha256 digest", index.Name, pd)
		}
		c := component(pd.Digest)
		c.Properties = []cdxProperty{{Name: PlatformProperty, Value: pd.Platform}}
		components = append(components, c)
		dep.DependsOn = append(dep.DependsOn, c.BOMRef)
	}
	doc := map[string]any{
		"bomFormat":    "CycloneDX",
		"specVersion":  "1.6",
		"version":      1,
		"metadata":     map[string]any{"component": top},
		"components":   components,
		"dependencies": []dependency{dep},
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("image %s: writing the index SBOM: %w", index.Name, err)
	}
	return append(b, '\n'), nil
}

// StepSBOM writes each digest's CycloneDX SBOM and attests it.
const StepSBOM = "attest-sbom"

var sbomStep = imageStep{name: StepSBOM, writes: true, next: adviceUntagged, run: (*ImageState).attestSBOM}

func (s *ImageState) attestSBOM(ctx context.Context) error {
	ev, err := attestSBOMs(ctx, s.Signing, s.Scanner, s.Target, s.Pushed)
	if err != nil {
		return err
	}
	s.Evidence = append(s.Evidence, ev...)
	flow.Logf(ctx, "%d SBOM attestation(s)", len(ev))
	return nil
}

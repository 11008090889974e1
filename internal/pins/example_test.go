package pins

import (
	"os"
	"path/filepath"
	"testing"

	"gopkg.in/yaml.v3"
)

// The example a repository copies to .shipyard/pins.Dockerfile is the file of Shipyard's
// own pins, so a repository that copies it runs what Shipyard was tested with; the
// Dependabot example updates that folder with the docker ecosystem.
func TestExamplePinsFile(t *testing.T) {
	dir := filepath.Join("..", "..", "examples", "pins")
	b, err := os.ReadFile(filepath.Join(dir, "pins.Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != string(FileOf(DefaultPins())) {
		t.Errorf("examples/pins/pins.Dockerfile is not the file of the default pins; write it again from pins.FileOf(pins.DefaultPins()):\n%s", FileOf(DefaultPins()))
	}
	var cfg struct {
		Updates []struct {
			Ecosystem string `yaml:"package-ecosystem"`
			Directory string `yaml:"directory"`
			Target    string `yaml:"target-branch"`
		} `yaml:"updates"`
	}
	d, err := os.ReadFile(filepath.Join(dir, "dependabot.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(d, &cfg); err != nil {
		t.Fatal(err)
	}
	if len(cfg.Updates) != 1 || cfg.Updates[0].Ecosystem != "docker" || "/"+filepath.Dir(File) != cfg.Updates[0].Directory || cfg.Updates[0].Target != "dev" {
		t.Errorf("dependabot.yml updates %+v, want docker in /%s to dev", cfg.Updates, filepath.Dir(File))
	}
}

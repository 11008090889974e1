package ci

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"dagger.io/dagger"
	"dagger/shipyard/internal/pins"
	"dagger/shipyard/internal/trust"
)

// e2eTag is the tag tesk-core's end-to-end tests expect (tests/e2e/cluster.py).
const e2eTag = "e2e"

// k3sService runs a one-node k3s cluster with the images imported into its containerd under
// the names the tests use, and writes its kubeconfig to a cache volume the test runner mounts.
func (p *Pipeline) k3sService(images []Image, kubeconfig *dagger.CacheVolume) *dagger.Service {
	ctr := p.Client.Container().
		From(p.Pins.K3s).
		WithMountedTemp("/run").
		WithMountedTemp("/var/run").
		WithMountedCache("/etc/rancher/k3s", kubeconfig).
		WithExposedPort(6443)
	var imports []string
	for _, img := range images {
		tar := "/images/" + img.Spec.Name + ".tar"
		ctr = ctr.WithFile(tar, ImageTarball(img.Container))
		imports = append(imports, fmt.Sprintf("k3s ctr -n k8s.io images import --index-name docker.io/library/%s:%s %s",
			img.Spec.Repository, e2eTag, tar))
	}
	script := strings.Join([]string{
		"rm -f /etc/rancher/k3s/k3s.yaml",
		"k3s server --disable=traefik --disable=metrics-server --write-kubeconfig-mode=644 --tls-san=k3s &",
		"until k3s ctr version >/dev/null 2>&1; do sleep 1; done",
		strings.Join(imports, " && "),
		"wait",
	}, "\n")
	return ctr.AsService(dagger.ContainerAsServiceOpts{
		Args:                     []string{"sh", "-c", script},
		InsecureRootCapabilities: true,
	})
}

// E2EContainer runs tests/e2e against k3s with both images loaded, after applying the
// manifests and waiting for the HTTP server pod, as tesk-core's development guide does.
//
// The k3s service runs with insecure root capabilities and applies the source's own
// manifests: run it only on an engine that holds no credentials and runs no publishing
// job (README: "Running on a remote Dagger engine").
//
// The tests run in namespace (tesk-core's tests read TESK_E2E_NAMESPACE; "default" when
// empty): the manifests are applied there and the HTTP server awaited there.
func (p *Pipeline) E2EContainer(ctx context.Context, images []Image, namespace string) (*dagger.Container, error) {
	if namespace == "" {
		namespace = DefaultNamespace
	}
	if err := CheckNamespace(namespace); err != nil {
		return nil, fmt.Errorf("e2e: %w", err)
	}
	src := p.codeSource()
	ctr, err := p.python(p.toolPython(), src)
	if err != nil {
		return nil, fmt.Errorf("e2e: %w", err)
	}
	name, err := p.kubeconfigVolumeName(ctx, src, images)
	if err != nil {
		return nil, fmt.Errorf("e2e: %w", err)
	}
	kubeconfig := p.Client.CacheVolume(name)
	kubectl := p.Client.Container().From(p.Pins.K3s).File("/bin/k3s")
	// A kubeconfig left by an earlier run fails to authenticate; retry until the live one
	// answers, within a bound.
	waitAPI := `for i in $(seq 1 180); do
  if [ -s /etc/rancher/k3s/k3s.yaml ]; then
    mkdir -p /root/.kube && sed 's/127.0.0.1/k3s/' /etc/rancher/k3s/k3s.yaml > /root/.kube/config
    kubectl get --raw=/readyz >/dev/null 2>&1 && exit 0
  fi
  sleep 2
done
echo "k3s did not become ready" >&2; exit 1`
	ctr = ctr.
		WithFile("/usr/local/bin/kubectl", kubectl).
		WithMountedCache("/etc/rancher/k3s", kubeconfig).
		WithServiceBinding("k3s", p.k3sService(images, kubeconfig)).
		WithEnvVariable("KUBECONFIG", "/root/.kube/config").
		WithExec([]string{"uv", "sync", "--frozen", "--extra", "dev"}).
		WithExec([]string{"sh", "-c", waitAPI}).
		WithExec([]string{"kubectl", "wait", "--for=condition=Ready", "nodes", "--all", "--timeout=180s"})
	if namespace != DefaultNamespace {
		// k3s starts with "default" only.
		ctr = ctr.WithExec([]string{"kubectl", "create", "namespace", namespace})
	}
	return ctr.
		WithExec([]string{"kubectl", "apply", "-f", "tests/e2e/manifests/", "--namespace", namespace}).
		WithExec([]string{"kubectl", "wait", "--for=condition=Ready", "pod/tesk-e2e-http", "--timeout=120s", "--namespace", namespace}).
		WithEnvVariable("TESK_E2E", "1").
		WithEnvVariable("TESK_E2E_NAMESPACE", namespace).
		WithExec([]string{"uv", "run", "pytest", "tests/e2e"}), nil
}

// DefaultNamespace is where tesk-core's end-to-end tests run unless told otherwise.
const DefaultNamespace = "default"

// CheckNamespace refuses a name Kubernetes would refuse for a namespace (an RFC 1123 label:
// at most 63 lowercase letters, digits and dashes, starting and ending alphanumeric), before
// a cluster is started for nothing.
func CheckNamespace(name string) error {
	ok := len(name) > 0 && len(name) <= 63
	for i, r := range name {
		alnum := (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9')
		if !alnum && (r != '-' || i == 0 || i == len(name)-1) {
			ok = false
		}
	}
	if !ok {
		return fmt.Errorf("--namespace %q: want a Kubernetes namespace name: at most 63 lowercase letters, digits and dashes, starting and ending with a letter or digit", name)
	}
	return nil
}

// kubeconfigVolumeName names the cache volume that hands k3s's kubeconfig to the test
// runner, after the run's inputs: the source's content and the images. Two e2e runs of
// different inputs on one engine then never read each other's kubeconfig, while the name
// stays deterministic, so an unchanged run is still cached (and identical runs are one).
func (p *Pipeline) kubeconfigVolumeName(ctx context.Context, src *dagger.Directory, images []Image) (string, error) {
	digest, err := src.Digest(ctx)
	if err != nil {
		return "", fmt.Errorf("digest of the source: %w", err)
	}
	ids := []string{digest, p.Pins.K3s}
	for _, img := range images {
		id, err := img.Container.ID(ctx)
		if err != nil {
			return "", fmt.Errorf("image %s: %w", img.Spec.Name, err)
		}
		ids = append(ids, img.Spec.Repository+"="+string(id))
	}
	return kubeconfigVolumeFor(p.Trust, p.Pins, ids), nil
}

// kubeconfigVolumeFor is the volume's name for a run's input keys, in any order.
func kubeconfigVolumeFor(t trust.Level, p pins.Pins, inputs []string) string {
	sorted := slices.Clone(inputs)
	slices.Sort(sorted)
	h := sha256.New()
	for _, s := range sorted {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return t.CacheVolumeName(kubeconfigVolume, p) + "-" + hex.EncodeToString(h.Sum(nil))[:16]
}

// E2E runs the end-to-end tests in namespace ("" for default) and returns pytest's output.
func (p *Pipeline) E2E(ctx context.Context, images []Image, namespace string) (string, error) {
	ctr, err := p.E2EContainer(ctx, images, namespace)
	if err != nil {
		return "", err
	}
	out, err := ctr.Stdout(ctx)
	if err != nil {
		return "", fmt.Errorf("e2e: %w", err)
	}
	return out, nil
}

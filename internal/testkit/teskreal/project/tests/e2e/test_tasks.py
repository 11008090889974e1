"""End-to-end tests: the images on a Kubernetes cluster, skipped unless TESK_E2E is set."""

import os

import pytest

pytestmark = pytest.mark.skipif(not os.environ.get("TESK_E2E"), reason="TESK_E2E not set")


def test_http_server_runs() -> None:
    """The manifests' HTTP server, on the filer's image, runs in the cluster."""
    from kubernetes import client, config

    config.load_kube_config()
    namespace = os.environ.get("TESK_E2E_NAMESPACE", "default")
    pod = client.CoreV1Api().read_namespaced_pod("tesk-e2e-http", namespace)
    assert pod.status.phase == "Running"

"""Job states from the Job's conditions, and the deletion of jobs and PVCs."""

from unittest.mock import MagicMock

import pytest
from kubernetes import client
from pytest_mock import MockerFixture

from tesk_core.filer_class import Filer
from tesk_core.job import Job
from tesk_core.pvc import PVC


def condition(type: str) -> MagicMock:
    return MagicMock(type=type, status="True")


@pytest.mark.parametrize(
    "conditions, want",
    [
        ([condition("Failed")], "Failed"),
        ([condition("SuccessCriteriaMet"), condition("Complete")], "Complete"),
        ([condition("Suspended")], "Error"),
        ([condition("Suspended"), condition("Failed")], "Failed"),
    ],
)
def test_job_status_from_conditions(
    mocker: MockerFixture, conditions: list[MagicMock], want: str
) -> None:
    read = mocker.patch.object(client.BatchV1Api, "read_namespaced_job")
    read.return_value.status.conditions = conditions
    job = Job({"metadata": {}}, "task-1-ex-00", "tasks")
    assert job.get_status(False) == (want, False)
    read.assert_called_once_with("task-1-ex-00", "tasks")


def test_job_delete_removes_its_pods_in_the_background(mocker: MockerFixture) -> None:
    delete = mocker.patch.object(client.BatchV1Api, "delete_namespaced_job")
    Job({"metadata": {}}, "task-1-ex-00", "tasks").delete()
    name, namespace = delete.call_args.args
    assert (name, namespace) == ("task-1-ex-00", "tasks")
    assert delete.call_args.kwargs["body"].propagation_policy == "Background"


def test_pvc_storage_class_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STORAGE_CLASS_NAME", "fast")
    pvc = PVC("task-1-pvc", 5)
    assert pvc.spec["spec"]["storageClassName"] == "fast"
    assert pvc.spec["spec"]["resources"] == {"requests": {"storage": "5Gi"}}


def test_pvc_default_storage_class(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("STORAGE_CLASS_NAME", raising=False)
    assert "storageClassName" not in PVC("task-1-pvc").spec["spec"]


def test_pvc_delete(mocker: MockerFixture) -> None:
    delete = mocker.patch.object(client.CoreV1Api, "delete_namespaced_persistent_volume_claim")
    PVC("task-1-pvc", namespace="tasks").delete()
    assert delete.call_args.args == ("task-1-pvc", "tasks")


def test_filer_debug_flag() -> None:
    spec = Filer("task-1-filer", {"inputs": []}).get_spec("inputs", debug=True)
    assert spec["spec"]["template"]["spec"]["containers"][0]["args"] == [
        "inputs",
        "$(JSON_INPUT)",
        "-d",
    ]
    assert spec["spec"]["template"]["metadata"]["name"] == "task-1-filer"

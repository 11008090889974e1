"""The taskmaster's entry point, its cancellation and the executor and filer jobs it runs."""

import gzip
import io
import json
import logging
from argparse import Namespace
from pathlib import Path
from typing import Any
from unittest.mock import MagicMock

import pytest
from pyfakefs.fake_filesystem import FakeFilesystem
from pytest_mock import MockerFixture

from tesk_core import taskmaster
from tesk_core.pvc import PVC


def task(**io: list[Any]) -> dict[str, Any]:
    """A TES task of one executor, with the given inputs, outputs and volumes."""
    return {
        "inputs": io.get("inputs", []),
        "outputs": io.get("outputs", []),
        "volumes": io.get("volumes", []),
        "resources": {"disk_gb": 1},
        "executors": [
            {
                "apiVersion": "batch/v1",
                "kind": "Job",
                "metadata": {"name": "task-1-ex-00", "labels": {"taskmaster-name": "task-1"}},
                "spec": {
                    "template": {
                        "spec": {
                            "containers": [
                                {"name": "ex", "image": "alpine", "resources": {}},
                            ],
                            "restartPolicy": "Never",
                        }
                    }
                },
            }
        ],
    }


@pytest.fixture
def tm(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The taskmaster module with its globals set as main() sets them, restored afterwards."""
    monkeypatch.setattr(
        taskmaster,
        "args",
        Namespace(
            namespace="default",
            pod_timeout=240,
            debug=False,
            pull_policy_always=False,
        ),
    )
    monkeypatch.setattr(taskmaster, "logger", logging.getLogger("taskmaster-test"))
    monkeypatch.setattr(taskmaster, "created_jobs", [])
    monkeypatch.setattr(taskmaster, "created_pvc", None, raising=False)
    for name in ("EXECUTOR_BACKOFF_LIMIT", "FILER_BACKOFF_LIMIT", "NETRC_SECRET_NAME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("TESK_FTP_USERNAME", raising=False)
    return taskmaster


class TestMain:
    """main() reads the task, loads the Kubernetes configuration and runs the task."""

    @pytest.fixture
    def run_task(self, tm: Any, mocker: MockerFixture) -> MagicMock:
        mocker.patch.object(tm.config, "load_incluster_config")
        mocker.patch.object(tm.config, "load_kube_config")
        mocker.patch.object(tm, "check_cancelled", return_value=False)
        mocker.patch.object(tm, "newLogger", return_value=logging.getLogger("taskmaster-test"))
        return mocker.patch.object(tm, "run_task")

    def test_json_argument(
        self, tm: Any, run_task: MagicMock, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setattr("sys.argv", ["taskmaster", json.dumps(task())])
        tm.main()
        run_task.assert_called_once_with(task(), "eu.gcr.io/tes-wes/filer", "v0.1.9", False)
        tm.config.load_incluster_config.assert_called_once_with()
        tm.config.load_kube_config.assert_not_called()
        assert tm.created_pvc is None

    def test_file_and_options(
        self, tm: Any, run_task: MagicMock, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
    ) -> None:
        request = tmp_path / "task.json"
        request.write_text(json.dumps(task()))
        monkeypatch.setattr(
            "sys.argv",
            ["taskmaster", "-f", str(request), "-fn", "filer", "-fv", "v1", "-n", "tasks"]
            + ["--localKubeConfig", "--debug"],
        )
        tm.main()
        run_task.assert_called_once_with(task(), "filer", "v1", False)
        tm.config.load_kube_config.assert_called_once_with()
        tm.newLogger.assert_called_once_with(logging.DEBUG)
        assert tm.args.namespace == "tasks"

    def test_gzipped_file_is_passed_to_the_filer_through_a_config_map(
        self, tm: Any, run_task: MagicMock, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
    ) -> None:
        request = tmp_path / "JSON_INPUT.gz"
        request.write_bytes(gzip.compress(json.dumps(task()).encode()))
        monkeypatch.setattr("sys.argv", ["taskmaster", "-f", str(request)])
        tm.main()
        run_task.assert_called_once_with(task(), "eu.gcr.io/tes-wes/filer", "v0.1.9", True)

    def test_stdin(self, tm: Any, run_task: MagicMock, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr("sys.argv", ["taskmaster", "-f", "-"])
        monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(task())))
        tm.main()
        assert run_task.call_args.args[0] == task()

    def test_cancelled_during_init_exits_without_running(
        self, tm: Any, run_task: MagicMock, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setattr("sys.argv", ["taskmaster", json.dumps(task())])
        tm.check_cancelled.return_value = True
        with pytest.raises(SystemExit) as exit:
            tm.main()
        assert exit.value.code == 0
        run_task.assert_not_called()

    def test_json_and_file_are_exclusive(
        self, tm: Any, run_task: MagicMock, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setattr("sys.argv", ["taskmaster", "{}", "-f", "task.json"])
        with pytest.raises(SystemExit) as exit:
            tm.main()
        assert exit.value.code == 2
        run_task.assert_not_called()


def test_new_logger_silences_the_kubernetes_client(mocker: MockerFixture) -> None:
    basic = mocker.patch("logging.basicConfig")
    logger = taskmaster.newLogger(logging.WARNING)
    assert basic.call_args.kwargs["level"] == logging.WARNING
    assert logger.name == "tesk_core.taskmaster"
    assert logging.getLogger("kubernetes.client").level == logging.CRITICAL


class TestCheckCancelled:
    """The task is cancelled when the pod's labels (downward API) say so."""

    def test_no_label_file(self, fs: FakeFilesystem) -> None:
        assert taskmaster.check_cancelled() is False

    def test_cancelled(self, fs: FakeFilesystem) -> None:
        fs.create_file("/podinfo/labels", contents='job-name="task-1"\ntask-status="Cancelled"')
        assert taskmaster.check_cancelled() is True

    def test_running(self, fs: FakeFilesystem) -> None:
        fs.create_file("/podinfo/labels", contents='job-name="task-1"\ntask-status="Running"')
        assert taskmaster.check_cancelled() is False


def test_clean_on_interrupt_deletes_the_created_jobs(tm: Any) -> None:
    jobs = [MagicMock(), MagicMock()]
    tm.created_jobs.extend(jobs)
    tm.clean_on_interrupt()
    for job in jobs:
        job.delete.assert_called_once_with()


def test_exit_cancelled_exits_successfully(tm: Any, caplog: pytest.LogCaptureFixture) -> None:
    with pytest.raises(SystemExit) as exit:
        tm.exit_cancelled("by the user")
    assert exit.value.code == 0
    assert "Cancelling taskmaster: by the user" in caplog.text


class TestRunExecutor:
    @pytest.fixture
    def run(self, tm: Any, mocker: MockerFixture) -> MagicMock:
        return mocker.patch.object(tm.Job, "run_to_completion", return_value="Complete")

    def test_backoff_limit_restart_policy_and_limits(
        self, tm: Any, run: MagicMock, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("EXECUTOR_BACKOFF_LIMIT", "3")
        executor = task()["executors"][0]
        spec = executor["spec"]["template"]["spec"]
        del spec["restartPolicy"]
        spec["restart_policy"] = "OnFailure"
        spec["containers"][0]["resources"] = {"requests": {"cpu": "1"}}
        tm.run_executor(executor, "default")
        assert executor["spec"]["backoffLimit"] == 3
        assert spec["restartPolicy"] == "OnFailure"
        assert spec["containers"][0]["resources"]["limits"] == {"cpu": "1"}
        assert [job.name for job in tm.created_jobs] == ["task-1-ex-00"]

    def test_null_volumes_get_the_task_volume(self, tm: Any, run: MagicMock) -> None:
        executor = task()["executors"][0]
        spec = executor["spec"]["template"]["spec"]
        spec["volumes"] = None
        pvc = MagicMock(volume_mounts=[{"name": "task-volume", "mountPath": "/data"}])
        pvc.name = "task-1-pvc"
        tm.run_executor(executor, "default", pvc)
        assert spec["volumes"] == [
            {
                "name": "task-volume",
                "persistentVolumeClaim": {"readonly": False, "claimName": "task-1-pvc"},
            }
        ]
        assert spec["containers"][0]["volumeMounts"] == pvc.volume_mounts


def test_generate_mounts_one_per_distinct_directory(tm: Any) -> None:
    data = task(
        volumes=["/data"],
        inputs=[{"type": "DIRECTORY", "path": "/data"}, {"type": "FILE", "path": "/in/a.txt"}],
        outputs=[{"type": "FILE", "path": "/out/b.txt"}, {"type": "DIRECTORY", "path": "/out"}],
    )
    pvc = PVC("task-1-pvc")
    mounts = tm.generate_mounts(data, pvc)
    assert mounts == [
        {"name": "task-volume", "mountPath": "/data", "subPath": "dir0"},
        {"name": "task-volume", "mountPath": "/in", "subPath": "dir1"},
        {"name": "task-volume", "mountPath": "/out", "subPath": "dir2"},
    ]


class TestRunTask:
    """Inputs and outputs bring a PVC and filer jobs around the executors."""

    @pytest.fixture
    def k8s(self, tm: Any, mocker: MockerFixture) -> MagicMock:
        mocker.patch.object(tm.PVC, "create")
        mocker.patch.object(tm.PVC, "delete")
        return mocker.patch.object(tm.Job, "run_to_completion", return_value="Complete")

    def data(self) -> dict[str, Any]:
        return task(
            inputs=[{"type": "FILE", "path": "/in/a.txt", "url": "http://example.org/a.txt"}],
            outputs=[{"type": "FILE", "path": "/out/b.txt", "url": "ftp://example.org/b.txt"}],
        )

    def test_json_pvc_ftp_netrc_and_backoff_reach_the_filer(
        self, tm: Any, k8s: MagicMock, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("TESK_FTP_USERNAME", "user")
        monkeypatch.setenv("TESK_FTP_PASSWORD", "secret")
        monkeypatch.setenv("FILER_BACKOFF_LIMIT", "2")
        monkeypatch.setenv("NETRC_SECRET_NAME", "my-netrc")
        tm.run_task(self.data(), "filer", "v1", have_json_pvc=True)
        inputs, executor, outputs = tm.created_jobs
        assert [inputs.name, executor.name, outputs.name] == [
            "task-1-inputs-filer",
            "task-1-ex-00",
            "task-1-outputs-filer",
        ]
        spec = outputs.body["spec"]
        assert spec["backoffLimit"] == 2
        pod = spec["template"]["spec"]
        env = {e["name"]: e["value"] for e in pod["containers"][0]["env"]}
        assert env["TESK_FTP_USERNAME"] == "user"
        assert env["TESK_FTP_PASSWORD"] == "secret"
        assert env["HOME"] == "/opt/home"
        assert "JSON_INPUT" not in env
        assert pod["containers"][0]["args"] == ["outputs", "/jsoninput/JSON_INPUT.gz"]
        volumes = {v["name"]: v for v in pod["volumes"]}
        assert volumes["jsoninput"]["configMap"] == {"name": "task-1"}
        assert volumes["netrc"]["secret"]["secretName"] == "my-netrc"
        tm.PVC.delete.assert_called_once_with()

    def test_outputs_filer_failure_cancels_and_keeps_the_pvc(self, tm: Any, k8s: MagicMock) -> None:
        k8s.side_effect = ["Complete", "Complete", "Failed"]
        with pytest.raises(SystemExit) as exit:
            tm.run_task(self.data(), "filer", "v1")
        assert exit.value.code == 0
        assert len(tm.created_jobs) == 3
        tm.PVC.delete.assert_not_called()

"""End-to-end test of the client/server deployment example, including refusals."""

import json
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

DEPLOYMENT = Path(__file__).resolve().parent.parent / "examples" / "deployment"
PACKAGE = Path(__file__).resolve().parent.parent / "sklearn_ldp"
#: What a device may load: the client side and the rooms under it.
CLIENT_ROOMS = {"randomizers", "accounting", "utils", "losses", "exceptions"}

#: client.py as a device runs it. Importing sklearn_ldp.randomizers runs
#: sklearn_ldp/__init__ (which imports every estimator), so the package is a
#: stub here: the client then loads exactly the modules it imports.
DEVICE = """
import runpy, sys, types
package = types.ModuleType("sklearn_ldp")
package.__path__ = [{package!r}]
sys.modules["sklearn_ldp"] = package
sys.path.insert(0, {deployment!r})
sys.argv = [{client!r}, *sys.argv[1:]]
try:
    runpy.run_path({client!r}, run_name="__main__")
finally:
    rooms = {{m.split(".")[1] for m in sys.modules if m.startswith("sklearn_ldp.")}}
    print("loaded:", *sorted(rooms), file=sys.stderr)
"""


def run(script, *args, cwd):
    return subprocess.run(
        [sys.executable, str(DEPLOYMENT / script), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def run_on_device(*args, cwd):
    device = Path(cwd) / "device.py"
    device.write_text(
        DEVICE.format(
            package=str(PACKAGE),
            deployment=str(DEPLOYMENT),
            client=str(DEPLOYMENT / "client.py"),
        )
    )
    return subprocess.run(
        [sys.executable, str(device), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def published(tmp_path):
    result = run("server.py", "publish", "--out", "config.json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    return tmp_path


def test_clients_then_server(published):
    for seed in (1, 2):
        result = run(
            "client.py",
            "--simulate",
            "3000",
            "--seed",
            str(seed),
            "--out",
            f"batch_{seed}.npz",
            cwd=published,
        )
        assert result.returncode == 0, result.stderr
    result = run(
        "server.py",
        "fit",
        "--model",
        "model.pkl",
        "batch_1.npz",
        "batch_2.npz",
        cwd=published,
    )
    assert result.returncode == 0, result.stderr
    assert "fitted on 6000 users' reports from 2 batches" in result.stdout
    model = pickle.loads((published / "model.pkl").read_bytes())
    assert model.coef_.shape == (20,)
    # The report files hold only reports: no raw field, the published config.
    with np.load(published / "batch_1.npz", allow_pickle=False) as data:
        header = json.loads(str(data["header"]))
    assert header["fields"] == ["x", "y"]
    assert header["config"]["epsilon"] == 4.0


def test_server_refuses_reports_made_with_another_configuration(published):
    config = json.loads((published / "config.json").read_text())
    # A client that was handed a different (consistently altered) configuration.
    config["params"]["epsilon"] = 8.0
    config["randomizer_config"]["epsilon"] = 8.0
    config["randomizer_config"]["sigma_x"] /= 2
    (published / "other.json").write_text(json.dumps(config))
    other = run(
        "client.py",
        "--config",
        "other.json",
        "--simulate",
        "500",
        "--out",
        "x.npz",
        cwd=published,
    )
    # The other client's own randomizer does not reproduce that sigma: refused.
    assert other.returncode != 0 and "differs from the published" in other.stderr
    del config["randomizer_config"]["sigma_x"]
    config["randomizer_config"] = None
    # Reports honestly made at epsilon = 8 reach the epsilon = 4 server: refused.
    from sklearn_ldp import SparseLDPRegressor

    params = dict(config["params"])
    est = SparseLDPRegressor(**params)
    rng = np.random.RandomState(0)
    X = rng.uniform(-1, 1, size=(500, 20)) / np.sqrt(20)
    randomizer = est.make_randomizer(20, n_users=len(X))
    randomizer.randomize(X, X[:, 0], random_state=0).save(published / "eps8.npz")
    good = run("client.py", "--simulate", "500", "--out", "good.npz", cwd=published)
    assert good.returncode == 0, good.stderr
    result = run("server.py", "fit", "good.npz", "eps8.npz", cwd=published)
    assert result.returncode == 2
    assert "refused" in result.stderr and "epsilon" in result.stderr


def test_the_client_imports_no_estimator_module(published):
    result = run_on_device("--simulate", "200", "--out", "device.npz", cwd=published)
    assert result.returncode == 0, result.stderr
    loaded = result.stderr.strip().splitlines()[-1].split()[1:]
    assert "randomizers" in loaded
    assert set(loaded) <= CLIENT_ROOMS, loaded
    assert (published / "device.npz").exists()


def test_reports_file_version_is_checked(tmp_path):
    from sklearn_ldp.randomizers import Reports

    np.savez(tmp_path / "bad.npz", header=np.array(json.dumps({"format_version": 99})))
    with pytest.raises(ValueError, match="format version 99"):
        Reports.load(tmp_path / "bad.npz")
    np.savez(tmp_path / "raw.npz", X=np.zeros(3))
    with pytest.raises(ValueError, match="not a sklearn_ldp reports file"):
        Reports.load(tmp_path / "raw.npz")

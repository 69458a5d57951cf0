"""End-to-end test of the client/server deployment example: score and refusals."""

import hashlib
import json
import pickle
import re
import shutil
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
        timeout=300,
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


def _members(path):
    with np.load(path, allow_pickle=False) as data:
        return {name: data[name] for name in data.files}


def _forge(source, target, *, header_changes=None, **members):
    """Rewrite a reports file with its header changed and its hashes made consistent."""
    saved = _members(source)
    if header_changes:
        header = {**json.loads(str(saved["header"])), **header_changes}
        text = json.dumps(header, sort_keys=True)
        saved["header"] = np.array(text)
        saved["header_sha256"] = np.array(hashlib.sha256(text.encode()).hexdigest())
    saved.update(members)
    np.savez(target, **saved)


@pytest.fixture
def published(tmp_path):
    result = run("server.py", "publish", "--out", "config.json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    return tmp_path


def _client(cwd, n, seed, out):
    result = run(
        "client.py", "--simulate", str(n), "--seed", str(seed), "--out", out, cwd=cwd
    )
    assert result.returncode == 0, result.stderr
    return cwd / out


def test_clients_then_server_learn_a_useful_model(published):
    config = json.loads((published / "config.json").read_text())
    n_users = config["n_users"]
    assert config["params"]["delta"] < 1 / n_users
    for seed in (1, 2):
        _client(published, n_users // 2, seed, f"batch_{seed}.npz")
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
    assert f"fitted on {n_users} users' reports from 2 of 2 files" in result.stdout
    private, baseline = map(
        float,
        re.search(
            r"private (-?[\d.]+), non-private (-?[\d.]+)", result.stdout
        ).groups(),
    )
    # Held-out R^2 over 50 noise draws of this configuration: 0.80 to 0.92
    # (median 0.89); least squares on the raw records: 0.94.
    assert private > 0.7, result.stdout
    assert baseline > 0.9, result.stdout
    model = pickle.loads((published / "model.pkl").read_bytes())
    assert model.coef_.shape == (config["n_features"],)
    assert model.n_reports_rejected_ == 0
    # The report files hold only reports: no raw field, the published config,
    # the library version and the content hash.
    with np.load(published / "batch_1.npz", allow_pickle=False) as data:
        header = json.loads(str(data["header"]))
    assert header["fields"] == ["x", "y"]
    assert header["config"] == config["randomizer_config"]
    assert header["library_version"] == config["sklearn_ldp_version"]
    assert len(header["content_sha256"]) == 64


def test_the_server_refuses_each_bad_file_in_one_line_and_goes_on(published):
    good = _client(published, 2000, 1, "good.npz")
    shutil.copy(good, published / "dup.npz")
    # The damaged files come from another batch (a copy of good.npz would be
    # refused first as a duplicate).
    other = _client(published, 2000, 2, "other.npz")
    data = other.read_bytes()
    (published / "cut.npz").write_bytes(data[: len(data) // 2])
    (published / "empty.npz").write_bytes(b"")
    (published / "text.npz").write_text("user,x,y\n1,0.5,0.2\n")
    flipped = bytearray(data)
    flipped[len(data) // 2] ^= 0x10
    (published / "flipped.npz").write_bytes(bytes(flipped))
    _forge(other, published / "major.npz", header_changes={"library_version": "99.0"})
    _forge(other, published / "padded.npz", padding=np.zeros(10**6))
    _forge(other, published / "crowd.npz", header_changes={"n_users": 2 * 10**6})
    _forge(other, published / "format.npz", header_changes={"format_version": 1})
    expected = {
        "dup.npz": "duplicate of good.npz",
        "cut.npz": "truncated or corrupted",
        "empty.npz": "empty file",
        "text.npz": "not a sklearn_ldp reports file",
        "flipped.npz": "corrupted",
        "major.npz": "written by sklearn_ldp '99.0'",
        "padded.npz": "more than the reports of its 2000 users take",
        "crowd.npz": "declares 2000000 users, but only",
        "format.npz": "older sklearn_ldp",
        "missing.npz": "no such file",
    }
    result = run("server.py", "fit", "good.npz", *expected, cwd=published)
    assert result.returncode == 0, result.stderr
    assert f"from 1 of {len(expected) + 1} files" in result.stdout
    lines = result.stderr.strip().splitlines()
    assert len(lines) == len(expected), result.stderr
    for line, (name, reason) in zip(lines, expected.items(), strict=True):
        assert line.startswith(f"refused: {name}") and reason in line, line


def test_nothing_valid_exits_non_zero(published):
    good = _client(published, 500, 1, "good.npz")
    (published / "cut.npz").write_bytes(good.read_bytes()[:100])
    result = run("server.py", "fit", "cut.npz", "missing.npz", cwd=published)
    assert result.returncode == 2
    assert "nothing to fit" in result.stderr
    assert "Traceback" not in result.stderr


def test_invalid_reports_in_a_valid_file_are_dropped_and_counted(published):
    from sklearn_ldp.randomizers import Reports

    good = Reports.load(_client(published, 2000, 1, "good.npz"))
    bad = good.subset([0, 1])
    bad = Reports({k: v.astype(float) for k, v in bad.fields.items()}, good.config)
    bad.fields["x"][0, 0] = 1e12
    bad.fields["y"][1] = np.nan
    Reports.concatenate([good, bad]).save(published / "mixed.npz")
    result = run("server.py", "fit", "--model", "m.pkl", "mixed.npz", cwd=published)
    assert result.returncode == 0, result.stderr
    assert "2 of 2002 reports rejected" in result.stderr
    assert "fitted on 2000 users' reports" in result.stdout
    assert pickle.loads((published / "m.pkl").read_bytes()).n_reports_rejected_ == 2


def test_reports_made_with_another_configuration_are_refused(published):
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
    # Reports honestly made at epsilon = 8 reach the epsilon = 6 server: that
    # file is refused, naming the key, and the good one is used.
    from sklearn_ldp import SparseLDPRegressor

    est = SparseLDPRegressor(**config["params"])
    rng = np.random.RandomState(0)
    X = rng.uniform(-1, 1, size=(500, config["n_features"])) / 3
    randomizer = est.make_randomizer(config["n_features"], n_users=config["n_users"])
    randomizer.randomize(X, X[:, 0], random_state=0).save(published / "eps8.npz")
    _client(published, 500, 1, "good.npz")
    result = run("server.py", "fit", "good.npz", "eps8.npz", cwd=published)
    assert result.returncode == 0, result.stderr
    assert "refused: eps8.npz: made with another configuration" in result.stderr
    assert "epsilon: 6.0 != 8.0" in result.stderr
    assert "from 1 of 2 files" in result.stdout


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

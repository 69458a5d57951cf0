"""The reports file format: round trip, and old or foreign files refused clearly."""

import json

import numpy as np
import pytest

from sklearn_ldp.randomizers import Reports
from sklearn_ldp.randomizers._reports import REPORTS_FORMAT_VERSION


def _reports():
    return Reports(
        {"x": np.arange(6.0).reshape(3, 2), "y": np.ones(3)},
        {"randomizer": "Demo", "n_features": 2, "epsilon": 1.0, "delta": 0.0},
    )


def test_round_trip(tmp_path):
    path = tmp_path / "batch.npz"
    _reports().save(path)
    loaded = Reports.load(path)
    assert loaded.config == _reports().config
    np.testing.assert_array_equal(loaded["x"], _reports()["x"])


def test_format_version_is_two():
    # Version 2 renamed the configuration values that were paper labels.
    assert REPORTS_FORMAT_VERSION == 2


@pytest.mark.parametrize("version", [1])
def test_older_files_are_refused_with_the_reason(tmp_path, version):
    path = tmp_path / "old.npz"
    header = {"format_version": version, "fields": ["x"], "config": {"protocol": "x"}}
    np.savez(path, header=np.array(json.dumps(header)), field_0=np.zeros((2, 1)))
    with pytest.raises(ValueError, match="older sklearn_ldp.*collect them again"):
        Reports.load(path)


def test_newer_files_are_refused(tmp_path):
    path = tmp_path / "new.npz"
    header = {"format_version": REPORTS_FORMAT_VERSION + 1, "fields": [], "config": {}}
    np.savez(path, header=np.array(json.dumps(header)))
    with pytest.raises(ValueError, match="format version"):
        Reports.load(path)

"""The reports file format: round trip, and old, foreign or damaged files refused clearly."""

import hashlib
import json

import numpy as np
import pytest

from sklearn_ldp.randomizers import Reports
from sklearn_ldp.randomizers._reports import REPORTS_FORMAT_VERSION, library_version


def _reports():
    return Reports(
        {"x": np.arange(6.0).reshape(3, 2), "y": np.ones(3)},
        {"randomizer": "Demo", "n_features": 2, "epsilon": 1.0, "delta": 0.0},
    )


def _members(path):
    with np.load(path, allow_pickle=False) as data:
        return {name: data[name] for name in data.files}


def _rewrite(path, header=None, **members):
    """Rewrite a reports file, re-hashing the header (a consistent forgery)."""
    saved = _members(path)
    if header is not None:
        text = json.dumps(header, sort_keys=True)
        saved["header"] = np.array(text)
        saved["header_sha256"] = np.array(hashlib.sha256(text.encode()).hexdigest())
    saved.update(members)
    np.savez(path, **saved)


def _header(path):
    return json.loads(str(_members(path)["header"]))


def test_round_trip(tmp_path):
    path = tmp_path / "batch.npz"
    _reports().save(path)
    loaded = Reports.load(path)
    assert loaded.config == _reports().config
    np.testing.assert_array_equal(loaded["x"], _reports()["x"])
    assert loaded.content_hash() == _reports().content_hash()
    header = _header(path)
    assert header["library_version"] == library_version()
    assert header["n_users"] == 3
    assert header["content_sha256"] == _reports().content_hash()


def test_the_content_hash_sees_every_value_dtype_and_the_configuration():
    base = _reports().content_hash()
    changed = _reports()
    changed.fields["y"][1] = 2.0
    assert changed.content_hash() != base
    as_float32 = _reports()
    as_float32.fields["y"] = as_float32.fields["y"].astype(np.float32)
    assert as_float32.content_hash() != base
    other = Reports(_reports().fields, {**_reports().config, "epsilon": 2.0})
    assert other.content_hash() != base


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


def _one_line(error):
    message = str(error.value)
    assert "\n" not in message
    return message


def test_empty_text_and_truncated_files_are_refused_in_one_line(tmp_path):
    empty = tmp_path / "empty.npz"
    empty.write_bytes(b"")
    with pytest.raises(ValueError, match="empty file") as error:
        Reports.load(empty)
    assert str(empty) in _one_line(error)
    text = tmp_path / "text.npz"
    text.write_text("user,x,y\n1,0.5,0.2\n")
    with pytest.raises(ValueError, match="not a sklearn_ldp reports file") as error:
        Reports.load(text)
    _one_line(error)
    whole = tmp_path / "whole.npz"
    _reports().save(whole)
    data = whole.read_bytes()
    for keep in [len(data) // 2, len(data) - 10, 30]:
        cut = tmp_path / f"cut_{keep}.npz"
        cut.write_bytes(data[:keep])
        with pytest.raises(ValueError, match="truncated|corrupted") as error:
            Reports.load(cut)
        _one_line(error)
    with pytest.raises(ValueError, match="no such file"):
        Reports.load(tmp_path / "missing.npz")


def test_a_flipped_byte_is_refused(tmp_path):
    path = tmp_path / "batch.npz"
    _reports().save(path)
    data = bytearray(path.read_bytes())
    # The bytes of field_0 (x = 0, 1, ..., 5): flip one bit of the value 5.0.
    where = bytes(data).index(np.float64(5.0).tobytes())
    data[where + 7] ^= 0x01
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="corrupted") as error:
        Reports.load(path)
    _one_line(error)


def test_altered_fields_or_header_do_not_match_their_hash(tmp_path):
    path = tmp_path / "batch.npz"
    _reports().save(path)
    # A field rewritten without the content hash: refused.
    _rewrite(path, field_1=np.array([1.0, 1.0, 1e12]))
    with pytest.raises(ValueError, match="do not match the SHA-256") as error:
        Reports.load(path)
    _one_line(error)
    # A header edited without its own hash: refused.
    _reports().save(path)
    saved = _members(path)
    saved["header"] = np.array(
        str(saved["header"]).replace('"epsilon": 1.0', '"epsilon": 9.0')
    )
    np.savez(path, **saved)
    with pytest.raises(ValueError, match="header does not match its SHA-256"):
        Reports.load(path)
    # A version 2 file without hashes (written before they existed): refused.
    saved = _members(path)
    del saved["header_sha256"]
    np.savez(path, **saved)
    with pytest.raises(ValueError, match="no SHA-256 of its header"):
        Reports.load(path)


def test_another_library_major_version_is_refused(tmp_path):
    path = tmp_path / "batch.npz"
    _reports().save(path)
    header = _header(path)
    major = int(library_version().split(".")[0])
    _rewrite(path, header={**header, "library_version": f"{major + 1}.0.0"})
    with pytest.raises(ValueError, match=f"written by sklearn_ldp '{major + 1}.0.0'"):
        Reports.load(path)
    # Another minor version of the same major is read.
    _rewrite(path, header={**header, "library_version": f"{major}.99.0"})
    assert len(Reports.load(path)) == 3
    _rewrite(path, header={**header, "library": "other"})
    with pytest.raises(ValueError, match="written by"):
        Reports.load(path)


def test_declared_and_actual_user_counts(tmp_path):
    path = tmp_path / "batch.npz"
    _reports().save(path)
    with pytest.raises(ValueError, match="declares 3 users, more than the 2 allowed"):
        Reports.load(path, max_users=2)
    assert len(Reports.load(path, max_users=3)) == 3
    header = _header(path)
    _rewrite(path, header={**header, "n_users": 2})
    with pytest.raises(ValueError, match="holds 3 users, its header declares 2"):
        Reports.load(path)


def test_a_npy_file_is_not_a_reports_file(tmp_path):
    path = tmp_path / "array.npy"
    np.save(path, np.zeros(3))
    with pytest.raises(ValueError, match="not a sklearn_ldp reports file"):
        Reports.load(path)


def test_the_header_is_read_and_checked_without_the_fields(tmp_path):
    path = tmp_path / "batch.npz"
    _reports().save(path)
    header = Reports.read_header(path)
    assert header["n_users"] == 3 and header["fields"] == ["x", "y"]
    assert header["content_sha256"] == _reports().content_hash()
    # An altered field is seen by load (the content hash), not by the header.
    _rewrite(path, field_1=np.array([1.0, 1.0, 1e12]))
    assert Reports.read_header(path)["n_users"] == 3
    with pytest.raises(ValueError, match="do not match the SHA-256"):
        Reports.load(path)
    empty = tmp_path / "empty.npz"
    empty.write_bytes(b"")
    with pytest.raises(ValueError, match="empty file"):
        Reports.read_header(empty)

"""Reports on disk as a Parquet dataset: ``Reports.to_parquet`` and ``read_reports``."""

import hashlib
import json
import os
import pickle
import sys

import numpy as np
import pyarrow.parquet as pq
import pytest

import sklearn_ldp
from sklearn_ldp import FrequencyLDP, GLMLDPClassifier, KWayMarginalsLDP, read_reports
from sklearn_ldp.io import ParquetReportStream, Partition, ReportStream
from sklearn_ldp.io import _parquet as reader_module
from sklearn_ldp.randomizers import Reports
from sklearn_ldp.randomizers import _reports_parquet as layout
from sklearn_ldp.randomizers._reports import REPORTS_FORMAT_VERSION, config_fingerprint


def _glm_reports(n, seed, epsilon=2.0, n_features=4):
    rng = np.random.RandomState(seed)
    X = rng.uniform(-1, 1, size=(n, n_features)) / np.sqrt(n_features)
    y = (X[:, 0] > 0).astype(int)
    est = GLMLDPClassifier(epsilon=epsilon, random_state=0)
    randomizer = est.make_randomizer(n_features, classes=[0, 1])
    return est, randomizer.randomize(X, y, random_state=seed)


def _real_reports():
    """Reports of real randomizers: float, uint8, int32 and int64 fields."""
    rng = np.random.RandomState(0)
    yield _glm_reports(300, 1)[1]
    categories = rng.randint(0, 8, size=(300, 1))
    for mechanism in ("unary_encoding", "local_hashing"):
        est = FrequencyLDP(categories=8, mechanism=mechanism, random_state=0)
        randomizer = est.make_randomizer(1, n_users=300)
        yield randomizer.randomize(categories, None, random_state=1)
    est = KWayMarginalsLDP(k=2, random_state=0)
    randomizer = est.make_randomizer(4, n_users=300)
    yield randomizer.randomize(rng.randint(0, 2, size=(300, 4)), None, random_state=2)


def _synthetic(n, seed=0, config=None):
    """Every kind of field a part holds: bool, small and big-endian, 1-D to 3-D."""
    rng = np.random.default_rng(seed)
    return Reports(
        {
            "x": rng.standard_normal((n, 3)),
            "level": rng.integers(-100, 100, n).astype(np.int8),
            "bits": rng.random((n, 2, 3)) < 0.5,
            "weight": rng.random(n).astype(">f4"),
            "half": rng.random((n, 2)).astype(np.float16),
            "count": rng.integers(0, 2**40, n).astype(np.uint64),
        },
        config or {"randomizer": "Demo", "epsilon": 1.0, "bounds": (0, 1)},
    )


def _assert_same_reports(got, expected):
    assert list(got.fields) == list(expected.fields)
    for name, value in expected.fields.items():
        assert got[name].dtype.str == value.dtype.str, name
        assert got[name].shape == value.shape, name
        np.testing.assert_array_equal(got[name], value, err_msg=name)
    assert json.dumps(got.config, sort_keys=True) == json.dumps(
        json.loads(json.dumps(expected.config)), sort_keys=True
    )
    assert got.content_hash() == expected.content_hash()


@pytest.mark.parametrize(
    "reports", list(_real_reports()), ids=lambda r: r.config["randomizer"]
)
def test_round_trip_of_real_randomizers_reports(tmp_path, reports):
    part = reports.to_parquet(tmp_path / "reports")
    stream = read_reports(tmp_path / "reports")
    assert isinstance(stream, ParquetReportStream) and isinstance(stream, ReportStream)
    assert len(stream) == len(reports)
    assert config_fingerprint(stream.config) == config_fingerprint(reports.config)
    (chunk,) = list(stream)
    _assert_same_reports(chunk, reports)
    # A single part file is a dataset too.
    _assert_same_reports(Reports.concatenate(read_reports(part)), reports)


def test_round_trip_keeps_every_dtype_and_shape(tmp_path):
    reports = _synthetic(50)
    reports.to_parquet(tmp_path)
    (chunk,) = list(read_reports(tmp_path))
    _assert_same_reports(chunk, reports)
    assert chunk["weight"].dtype.str == ">f4" and chunk["bits"].shape == (50, 2, 3)
    assert all(value.flags.writeable for value in chunk.fields.values())


def test_the_metadata_holds_the_configuration_versions_fields_and_hashes(tmp_path):
    reports = _synthetic(10)
    part = reports.to_parquet(tmp_path)
    header = json.loads(pq.read_metadata(part).metadata[layout.HEADER_KEY])
    assert header["config"] == {"randomizer": "Demo", "epsilon": 1.0, "bounds": [0, 1]}
    assert header["format_version"] == REPORTS_FORMAT_VERSION
    assert header["library_version"] == sklearn_ldp.__version__
    assert header["fields"][:3] == [
        ["x", "<f8", [3]],
        ["level", "|i1", []],
        ["bits", "|b1", [2, 3]],
    ]
    assert header["content_sha256"] == reports.content_hash()
    assert header["row_groups"] == [[10, layout.rows_sha256(reports.fields, 0, 10)]]
    assert pq.read_metadata(part).row_group(0).column(0).compression == "ZSTD"


def test_appended_parts_are_read_in_write_order(tmp_path):
    batches = [_synthetic(n, seed) for seed, n in enumerate((7, 3, 0, 12))]
    paths = [batch.to_parquet(tmp_path / "d") for batch in batches]
    names = [os.path.basename(path) for path in paths]
    assert names == sorted(names)
    assert [name[:13] for name in names] == [f"part-{i:08d}" for i in range(4)]
    assert sorted(os.listdir(tmp_path / "d")) == names  # no temporary file left
    stream = read_reports(tmp_path / "d")
    assert len(stream) == 22
    assert [part.n_reports for part in stream.parts] == [7, 3, 0, 12]
    assert [part.content_sha256 for part in stream.parts] == [
        b.content_hash() for b in batches
    ]
    _assert_same_reports(Reports.concatenate(stream), Reports.concatenate(batches))


@pytest.fixture
def small_row_groups(monkeypatch):
    """Row groups of 4 users and a default chunk of 8: chunks that cut row groups."""
    monkeypatch.setattr(layout, "ROW_GROUP_ROWS", 4)
    monkeypatch.setattr(reader_module, "DEFAULT_STREAM_CHUNK", 8)


@pytest.mark.parametrize("chunk_size", [1, 3, 5, 7, 11, 40])
def test_chunks_of_any_size_cross_row_groups_and_parts(
    tmp_path, small_row_groups, chunk_size
):
    batches = [_synthetic(n, seed) for seed, n in enumerate((10, 5, 13, 0, 2))]
    for batch in batches:
        batch.to_parquet(tmp_path)
    assert [
        pq.read_metadata(p.path).num_row_groups for p in read_reports(tmp_path).parts
    ] == [3, 2, 4, 0, 1]
    everything = Reports.concatenate(batches)
    stream = read_reports(tmp_path, chunk_size=chunk_size)
    chunks = list(stream)
    assert [len(c) for c in chunks] == [
        min(chunk_size, 30 - start) for start in range(0, 30, chunk_size)
    ]
    partitions = stream.partitions()
    assert [p.start for p in partitions] == list(range(0, 30, chunk_size))
    assert [p.n_reports for p in partitions] == [len(c) for c in chunks]
    _assert_same_reports(Reports.concatenate(chunks), everything)
    for part, chunk in zip(partitions, chunks, strict=True):
        # A partition loads alone (as on a Dask worker), after a pickle round trip.
        loaded = pickle.loads(pickle.dumps(part)).load()
        assert loaded.content_hash() == chunk.content_hash()
        expected = everything.subset(slice(part.start, part.start + part.n_reports))
        for name, value in loaded.fields.items():
            assert (
                value.dtype.str == batches[0][name].dtype.str
            )  # '>f4' stays big-endian
            np.testing.assert_array_equal(value, expected[name])


def test_default_chunks_are_whole_row_groups_within_a_part(tmp_path, small_row_groups):
    for seed, n in enumerate((10, 5, 13)):
        _synthetic(n, seed).to_parquet(tmp_path)
    stream = read_reports(tmp_path)
    assert stream.chunk_size is None
    # Row groups of 4 gathered up to 8 reports, never across parts.
    assert [len(c) for c in stream] == [8, 2, 5, 8, 5]
    assert [p.start for p in stream.partitions()] == [0, 8, 10, 15, 23]


def test_partitions_are_small_and_picklable(tmp_path):
    _, reports = _glm_reports(2000, 0)
    reports.to_parquet(tmp_path)
    (part,) = read_reports(tmp_path).partitions()
    assert isinstance(part, Partition)
    payload = pickle.dumps(part)
    assert len(payload) < 4000  # paths, row groups, checksums; no reports
    _assert_same_reports(pickle.loads(payload).load(), reports)


def test_opening_reads_only_the_metadata(tmp_path, monkeypatch):
    _synthetic(20).to_parquet(tmp_path)

    def no_data(*args, **kwargs):
        raise AssertionError("read a row group")

    monkeypatch.setattr(pq.ParquetFile, "read_row_group", no_data)
    stream = read_reports(tmp_path, chunk_size=6)
    assert len(stream) == 20 and stream.config["randomizer"] == "Demo"
    assert len(stream.partitions()) == 4
    with pytest.raises(AssertionError, match="read a row group"):
        next(iter(stream))


def test_appending_another_configuration_is_refused_naming_the_keys(tmp_path):
    _synthetic(5).to_parquet(tmp_path)
    other = _synthetic(
        5, config={"randomizer": "Demo", "epsilon": 2.0, "bounds": (0, 1)}
    )
    with pytest.raises(
        ValueError, match=r"another randomizer configuration.*epsilon: 1.0 != 2.0"
    ):
        other.to_parquet(tmp_path)
    fewer = Reports({"x": np.zeros((5, 3))}, _synthetic(1).config)
    with pytest.raises(ValueError, match="Cannot append reports with fields"):
        fewer.to_parquet(tmp_path)
    assert len(os.listdir(tmp_path)) == 1


def test_a_dataset_mixing_configurations_is_refused_naming_the_file(tmp_path):
    first = _synthetic(5).to_parquet(tmp_path / "a")
    other = _synthetic(
        5, config={"randomizer": "Demo", "epsilon": 2.0, "bounds": (0, 1)}
    )
    second = other.to_parquet(tmp_path / "b")
    with pytest.raises(ValueError) as error:
        read_reports([first, second])
    message = str(error.value)
    assert message.startswith(second) and "epsilon: 1.0 != 2.0" in message
    assert "\n" not in message


def _forge(source, target, *, header_changes=None, rehash=True):
    """Rewrite a part with its metadata changed (its SHA-256 made consistent if ``rehash``)."""
    table = pq.read_table(source)
    pairs = dict(table.schema.metadata)
    header = {**json.loads(pairs[layout.HEADER_KEY]), **(header_changes or {})}
    text = json.dumps(header, sort_keys=True).encode()
    pairs[layout.HEADER_KEY] = text
    if rehash:
        pairs[layout.HEADER_SHA256_KEY] = hashlib.sha256(text).hexdigest().encode()
    pq.write_table(
        table.replace_schema_metadata(pairs),
        target,
        row_group_size=layout.ROW_GROUP_ROWS,
    )
    return str(target)


def _damaged_files(tmp_path):
    """``(path, reason)`` of each damaged file, made from an honest part."""
    _, reports = _glm_reports(3000, 3)
    good = reports.to_parquet(tmp_path / "good")
    data = open(good, "rb").read()
    bad = tmp_path / "bad"
    bad.mkdir()
    files = {}
    (bad / "empty.parquet").write_bytes(b"")
    files["empty.parquet"] = "empty file"
    (bad / "text.parquet").write_text("user,x,y\n1,0.5,0.2\n")
    files["text.parquet"] = "not a Parquet file"
    (bad / "cut.parquet").write_bytes(data[: len(data) // 2])
    files["cut.parquet"] = "truncated or corrupted"
    (bad / "plain.parquet").write_bytes(b"")
    pq.write_table(
        pq.read_table(good).replace_schema_metadata({}), bad / "plain.parquet"
    )
    files["plain.parquet"] = "not a sklearn_ldp reports file"
    _forge(good, bad / "major.parquet", header_changes={"library_version": "99.0"})
    files["major.parquet"] = "written by sklearn_ldp '99.0'"
    _forge(good, bad / "older.parquet", header_changes={"format_version": 1})
    files["older.parquet"] = "older sklearn_ldp"
    _forge(good, bad / "altered.parquet", header_changes={"config": {}}, rehash=False)
    files["altered.parquet"] = "does not match its SHA-256"
    _forge(good, bad / "crowd.parquet", header_changes={"n_users": 10**6})
    files["crowd.parquet"] = "metadata declares 1000000"
    return good, bad, files


def test_damaged_files_are_refused_in_one_line_naming_them(tmp_path):
    _, bad, files = _damaged_files(tmp_path)
    for name, reason in files.items():
        path = str(bad / name)
        with pytest.raises(ValueError) as error:
            read_reports(path)
        message = str(error.value)
        assert message.startswith(path) and reason in message, (name, message)
        assert "\n" not in message


def test_a_flipped_byte_in_the_reports_is_refused_when_read(tmp_path):
    _, reports = _glm_reports(3000, 3)
    good = reports.to_parquet(tmp_path / "good")
    data = bytearray(open(good, "rb").read())
    data[len(data) // 3] ^= 0x10  # inside the column chunk of the features
    flipped = tmp_path / "flipped.parquet"
    flipped.write_bytes(bytes(data))
    stream = read_reports(flipped)  # the metadata is intact
    with pytest.raises(ValueError) as error:
        list(stream)
    message = str(error.value)
    assert message.startswith(str(flipped)) and "\n" not in message
    assert "corrupted" in message
    with pytest.raises(ValueError, match="corrupted"):
        stream.partitions()[0].load()


def test_a_changed_value_with_intact_metadata_does_not_match_its_hash(tmp_path):
    reports = _synthetic(30)
    part = reports.to_parquet(tmp_path / "d")
    altered = Reports(dict(reports.fields), reports.config)
    altered.fields["x"] = altered["x"].copy()
    altered.fields["x"][17, 1] += 1.0
    # The altered values under the original metadata (its SHA-256 is intact).
    table = pq.read_table(altered.to_parquet(tmp_path / "e"))
    forged = tmp_path / "forged.parquet"
    pq.write_table(
        table.replace_schema_metadata(pq.read_table(part).schema.metadata), forged
    )
    stream = read_reports(forged)
    with pytest.raises(
        ValueError, match=r"forged.parquet: row group 0 does not match its SHA-256"
    ):
        list(stream)


def test_missing_paths_and_empty_directories(tmp_path):
    with pytest.raises(ValueError, match="nope: no such file or directory"):
        read_reports(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="no Parquet part file"):
        read_reports(tmp_path / "empty")
    with pytest.raises(TypeError, match="expects a path"):
        read_reports(3)
    with pytest.raises(ValueError, match="chunk_size must be a positive integer"):
        read_reports(tmp_path, chunk_size=0)
    with pytest.raises(ValueError, match="backend must be None or 'dask'"):
        read_reports(tmp_path, backend="spark")


def test_hidden_and_temporary_files_are_not_parts(tmp_path):
    reports = _synthetic(4)
    reports.to_parquet(tmp_path)
    (tmp_path / ".part-00000009-0000abcd.parquet.tmp").write_bytes(b"half")
    (tmp_path / "_SUCCESS").write_bytes(b"")
    (tmp_path / "notes.txt").write_text("not a part")
    assert len(read_reports(tmp_path)) == 4


def test_fields_parquet_cannot_hold_are_refused(tmp_path):
    with pytest.raises(TypeError, match="dtype complex128"):
        Reports({"z": np.zeros(3, dtype=complex)}, {}).to_parquet(tmp_path / "a")
    with pytest.raises(ValueError, match="no value per user"):
        Reports({"z": np.zeros((3, 0))}, {}).to_parquet(tmp_path / "b")
    (tmp_path / "file").write_text("")
    with pytest.raises(ValueError, match="is a file"):
        _synthetic(3).to_parquet(tmp_path / "file")


def test_streamed_fit_from_parquet_equals_the_in_memory_fit(tmp_path):
    batches = [_glm_reports(1500, seed)[1] for seed in (4, 5, 6)]
    for batch in batches:
        batch.to_parquet(tmp_path)
    est = GLMLDPClassifier(epsilon=2.0, random_state=0)
    streamed = est.fit_reports(read_reports(tmp_path, chunk_size=1000)).coef_
    in_memory = GLMLDPClassifier(epsilon=2.0, random_state=0).fit_reports(
        Reports.concatenate(batches)
    )
    np.testing.assert_array_equal(streamed, in_memory.coef_)
    np.testing.assert_array_equal(est.intercept_, in_memory.intercept_)


def test_one_pass_fit_on_dask_equals_the_in_memory_fit(tmp_path):
    est = FrequencyLDP(categories=6, random_state=0)
    randomizer = est.make_randomizer(1, n_users=4000)
    rng = np.random.RandomState(0)
    batches = [
        randomizer.randomize(rng.randint(0, 6, size=(n, 1)), None, random_state=seed)
        for seed, n in enumerate((1500, 2500))
    ]
    for batch in batches:
        batch.to_parquet(tmp_path)
    stream = read_reports(tmp_path, chunk_size=700, backend="dask")
    assert stream.backend == "dask"
    on_dask = est.fit_reports(stream).frequencies_
    in_memory = FrequencyLDP(categories=6, random_state=0).fit_reports(
        Reports.concatenate(batches)
    )
    np.testing.assert_array_equal(on_dask, in_memory.frequencies_)


def test_without_pyarrow_the_extra_to_install_is_named(tmp_path, monkeypatch):
    _synthetic(3).to_parquet(tmp_path)
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(ImportError, match=r"pip install 'sklearn_ldp\[parquet\]'"):
        _synthetic(3).to_parquet(tmp_path)
    with pytest.raises(ImportError, match=r"pip install 'sklearn_ldp\[parquet\]'"):
        read_reports(tmp_path)


def test_without_dask_the_extra_to_install_is_named(tmp_path, monkeypatch):
    _synthetic(3).to_parquet(tmp_path)
    monkeypatch.setitem(sys.modules, "dask", None)
    with pytest.raises(ImportError, match=r"pip install 'sklearn_ldp\[dask\]'"):
        read_reports(tmp_path, backend="dask")
    assert read_reports(tmp_path).backend is None


def test_a_failed_write_leaves_no_part(tmp_path, monkeypatch):
    _synthetic(4).to_parquet(tmp_path)
    before = sorted(os.listdir(tmp_path))

    def disk_full(*args, **kwargs):
        raise OSError("No space left on device")

    monkeypatch.setattr(pq.ParquetWriter, "write_table", disk_full)
    with pytest.raises(OSError, match="No space left"):
        _synthetic(4).to_parquet(tmp_path)
    assert sorted(os.listdir(tmp_path)) == before  # no part, no temporary file


def test_concurrent_appends_take_distinct_sequence_numbers(tmp_path):
    import threading

    _synthetic(3).to_parquet(tmp_path)
    errors = []

    def append(seed):
        try:
            _synthetic(50, seed=seed).to_parquet(tmp_path)
        except Exception as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=append, args=(s,)) for s in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    parts = layout.list_parts(tmp_path)
    numbers = sorted(int(layout.PART_NAME.fullmatch(p)[1]) for p in parts)
    assert numbers == list(range(7))
    assert len(read_reports(tmp_path)) == 3 + 6 * 50
    assert sorted(os.listdir(tmp_path)) == parts  # no lock or temporary file left


def test_the_configuration_is_checked_again_under_the_lock(tmp_path, monkeypatch):
    # A writer that passed the early check waits for the lock while another
    # writer publishes a part of another configuration: it must refuse.
    import threading

    _synthetic(3).to_parquet(tmp_path)
    waiting = threading.Event()
    real_lock = layout._append_lock

    class ObservedLock(real_lock):
        def __enter__(self):
            waiting.set()
            return super().__enter__()

    monkeypatch.setattr(layout, "_append_lock", ObservedLock)
    outcome = []

    def append():
        try:
            outcome.append(_synthetic(4).to_parquet(tmp_path))
        except ValueError as error:
            outcome.append(error)

    with real_lock(os.fspath(tmp_path)):
        thread = threading.Thread(target=append)
        thread.start()
        assert waiting.wait(timeout=60)
        other = _synthetic(
            5, config={"randomizer": "Demo", "epsilon": 2.0, "bounds": (0, 1)}
        )
        written = other.to_parquet(tmp_path / "elsewhere")
        os.replace(written, tmp_path / "part-00000001-0123abcd.parquet")
        os.rmdir(tmp_path / "elsewhere")
    thread.join(timeout=60)
    assert len(outcome) == 1 and isinstance(outcome[0], ValueError)
    assert "another randomizer configuration" in str(outcome[0])
    assert len(layout.list_parts(tmp_path)) == 2
    assert not [name for name in os.listdir(tmp_path) if name.endswith(".tmp")]

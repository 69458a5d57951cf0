"""Reports beyond one in-memory batch: report streams, and reports on disk (Parquet).

The server reads a :class:`ReportStream` one chunk at a time; a Parquet
dataset of reports (optional extra ``pip install sklearn_ldp[parquet]``) is
read with :func:`read_reports`, on this process or, with ``backend='dask'``
(extra ``[dask]``), on a Dask cluster.
"""

from ._parquet import ParquetPart, ParquetReportStream, read_reports
from ._stream import (
    InMemoryReportStream,
    IterableReportStream,
    Partition,
    ReportStream,
    as_report_stream,
    stream_reports,
)

__all__ = [
    "InMemoryReportStream",
    "IterableReportStream",
    "ParquetPart",
    "ParquetReportStream",
    "Partition",
    "ReportStream",
    "as_report_stream",
    "read_reports",
    "stream_reports",
]
